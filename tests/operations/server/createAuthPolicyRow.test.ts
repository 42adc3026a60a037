// createAuthPolicyRow (POST /v1/auth-policy/rows): a row is saved only when its contract, read from the chain, exposes
// every named function; each row-save error of the contract's table. Set-up in authPolicy.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { installContract, rpcDown, sacAt, unknownContract, withContractReads } from '../../support/sorobanAuth';
import { auditOf, createRow, creds, listRows, svc, useService } from './authPolicy.setup';

describe('createAuthPolicyRow', () => {
  useService();

  test('201: a deployed contract with functions it exposes; listed, audited with the key as actor', async () => {
    const contract = installContract(svc, ['transfer', 'approve', 'balance']);
    const res = await createRow({ contract, functions: ['transfer', 'approve'], label: 'Token' });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.code, 'SERVER_AUTH_POLICY_ROW_CREATED');
    const row = res.body.content;
    assert.match(row.rowId, /^apr_/);
    assert.deepEqual(
      { contract: row.contract, functions: row.functions, label: row.label, enabled: row.enabled },
      { contract, functions: ['transfer', 'approve'], label: 'Token', enabled: true },
    );
    const listed = await listRows();
    assert.ok(listed.body.content.rows.some((r: any) => r.rowId === row.rowId));
    const audited = (await auditOf(creds.app.id, 'auth_policy_row.created')).find((a) => a.details.rowId === row.rowId);
    assert.equal(audited?.actor_type, 'api_key');
    assert.equal(audited?.actor_id, creds.secretKeyId);
    assert.equal(audited?.details.functions, 'transfer,approve');
  });

  test("'any contract' with 'any function' is saved without reading the chain; disabled on request", async () => {
    const res = await withContractReads(svc, rpcDown, () =>
      createRow({ contract: '*', functions: ['*'], enabled: false }),
    );
    assert.equal(res.status, 201, res.text);
    assert.deepEqual([res.body.content.contract, res.body.content.functions], ['*', ['*']]);
    assert.equal(res.body.content.enabled, false);
    assert.equal(res.body.content.label, undefined);
  });

  test('400 SOROBAN_AUTH_WILDCARD_REQUIRES_ANY_FUNCTION: an any-contract row with named functions', async () => {
    const res = await createRow({ contract: '*', functions: ['transfer'] });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.code, 'SOROBAN_AUTH_WILDCARD_REQUIRES_ANY_FUNCTION');
  });

  test('400 VALIDATION_ERROR: "*" mixed with names, a C-address with a bad checksum', async () => {
    const contract = installContract(svc, ['transfer']);
    const mixed = await createRow({ contract, functions: ['*', 'transfer'] });
    assert.equal(mixed.status, 400, mixed.text);
    assert.equal(mixed.body.code, 'VALIDATION_ERROR');
    assert.ok(mixed.body.details.fieldErrors.functions);
    const last = contract.at(-1) === 'A' ? 'B' : 'A';
    const badSum = await createRow({ contract: contract.slice(0, -1) + last, functions: ['transfer'] });
    assert.equal(badSum.status, 400, badSum.text);
    assert.equal(badSum.body.code, 'VALIDATION_ERROR');
    assert.ok(badSum.body.details.fieldErrors.contract);
  });

  test('422 CONTRACT_FUNCTION_UNKNOWN names the function (names are case-sensitive); nothing saved', async () => {
    const contract = installContract(svc, ['transfer']);
    const before = (await listRows()).body.content.rows.length;
    const res = await createRow({ contract, functions: ['transfer', 'Transfer'] });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.code, 'CONTRACT_FUNCTION_UNKNOWN');
    assert.equal(res.body.message, `Contract ${contract} has no function: Transfer`);
    assert.equal((await listRows()).body.content.rows.length, before);
  });

  test('422 CONTRACT_NOT_FOUND: a contract not deployed on the network', async () => {
    const contract = unknownContract();
    const res = await createRow({ contract, functions: ['*'] });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.code, 'CONTRACT_NOT_FOUND');
    assert.match(res.body.message, new RegExp(`${contract} is not deployed on testnet`));
  });

  test('503 CONTRACT_INTROSPECTION_FAILED: the RPC cannot be reached; nothing saved', async () => {
    const contract = installContract(svc, ['transfer']);
    const before = (await listRows()).body.content.rows.length;
    const res = await withContractReads(svc, rpcDown, () => createRow({ contract, functions: ['transfer'] }));
    assert.equal(res.status, 503, res.text);
    assert.equal(res.body.code, 'CONTRACT_INTROSPECTION_FAILED');
    assert.equal((await listRows()).body.content.rows.length, before);
  });

  test('a Stellar Asset Contract introspects as the token interface (SEP-41 and the admin functions)', async () => {
    const sac = unknownContract();
    await withContractReads(svc, sacAt(sac), async () => {
      const ok = await createRow({ contract: sac, functions: ['transfer', 'approve', 'mint', 'clawback', 'decimals'] });
      assert.equal(ok.status, 201, ok.text);
      const unknown = await createRow({ contract: sac, functions: ['transfer', 'swap'] });
      assert.equal(unknown.status, 422, unknown.text);
      assert.equal(unknown.body.message, `Contract ${sac} has no function: swap`);
    });
  });
});
