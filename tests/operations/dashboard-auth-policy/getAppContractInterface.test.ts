// getAppContractInterface (GET /api/v1/apps/{appId}/contracts/{contractId}): what a row being written may list, read
// from the chain now (a WASM contract's spec, a Stellar Asset Contract's token interface); nothing stored. Set-up in
// setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { StrKey } from '@stellar/stellar-sdk';
import { installContract, rpcDown, sacAt, unknownContract, withContractReads } from '../../support/sorobanAuth';
import { STELLAR_ASSET_CONTRACT_FUNCTIONS } from '../../../src/domain/sorobanAuth/introspection';
import { auditOf, contractInterfaceOf, developer, outsider, svc, teamApp, useService } from './setup';

describe('getAppContractInterface', () => {
  useService();

  test('200 for a member: a WASM contract\u2019s functions from its spec, sorted; nothing stored or audited', async () => {
    const appId = await teamApp();
    const contract = installContract(svc, ['transfer', 'approve', 'swap']);
    const res = await contractInterfaceOf(developer, appId, contract);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'CONTRACT_INTERFACE_FETCHED');
    assert.deepEqual(res.body.content, {
      contract,
      network: 'testnet',
      kind: 'wasm',
      functions: ['approve', 'swap', 'transfer'],
    });
    assert.equal((await svc.deps.db('auth_policy_rows').where({ app_id: appId })).length, 0);
    assert.equal((await auditOf(appId, 'auth_policy_row.created')).length, 0);
  });

  test('a Stellar Asset Contract answers its token interface', async () => {
    const appId = await teamApp();
    const sac = unknownContract();
    const res = await withContractReads(svc, sacAt(sac), () => contractInterfaceOf(developer, appId, sac));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.content.kind, 'stellar_asset');
    assert.deepEqual(res.body.content.functions, [...STELLAR_ASSET_CONTRACT_FUNCTIONS].sort());
  });

  test('422 CONTRACT_NOT_FOUND; 503 CONTRACT_INTROSPECTION_FAILED with the RPC down', async () => {
    const appId = await teamApp();
    const missing = await contractInterfaceOf(developer, appId, unknownContract());
    assert.equal(missing.status, 422, missing.text);
    assert.equal(missing.body.code, 'CONTRACT_NOT_FOUND');
    const contract = installContract(svc, ['transfer']);
    const down = await withContractReads(svc, rpcDown, () => contractInterfaceOf(developer, appId, contract));
    assert.equal(down.status, 503, down.text);
    assert.equal(down.body.code, 'CONTRACT_INTROSPECTION_FAILED');
  });

  test('400 VALIDATION_ERROR for a C-address whose checksum is wrong or that is not one', async () => {
    const appId = await teamApp();
    const good = unknownContract();
    const flipped = good.slice(0, -1) + (good.endsWith('A') ? 'B' : 'A');
    assert.equal(StrKey.isValidContract(flipped), false);
    const badSum = await contractInterfaceOf(developer, appId, flipped);
    assert.equal(badSum.status, 400, badSum.text);
    assert.deepEqual(badSum.body.details.fieldErrors, { contractId: ['must be a contract C-address (checksum)'] });
    const account = await contractInterfaceOf(developer, appId, StrKey.encodeEd25519PublicKey(Buffer.alloc(32)));
    assert.equal(account.status, 400, account.text);
    assert.equal(account.body.code, 'VALIDATION_ERROR');
  });

  test('404 APPLICATION_NOT_FOUND for an outsider', async () => {
    const appId = await teamApp();
    const res = await contractInterfaceOf(outsider, appId, installContract(svc, ['transfer']));
    assert.equal(res.status, 404, res.text);
    assert.equal(res.body.code, 'APPLICATION_NOT_FOUND');
  });
});
