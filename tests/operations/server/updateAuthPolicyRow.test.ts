// updateAuthPolicyRow (PATCH /v1/auth-policy/rows/{rowId}): functions (read from the chain again), label and enabled
// change; the row-save errors leave the row as it was; another app's row is not found. Set-up in authPolicy.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedCredentials } from '../../support/credentials';
import { installContract, rpcDown, withContractReads } from '../../support/sorobanAuth';
import { auditOf, createRow, creds, listRows, svc, updateRow, useService } from './authPolicy.setup';

const rowOf = async (rowId: string) =>
  (await listRows()).body.content.rows.find((r: any) => r.rowId === rowId) as Record<string, unknown>;

describe('updateAuthPolicyRow', () => {
  useService();

  test('200: functions, label and enabled change; audited', async () => {
    const contract = installContract(svc, ['transfer', 'approve']);
    const created = (await createRow({ contract, functions: ['transfer'] })).body.content;
    const res = await updateRow(created.rowId, { functions: ['approve', 'transfer'], label: 'Token', enabled: false });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'SERVER_AUTH_POLICY_ROW_UPDATED');
    assert.deepEqual(res.body.content.functions, ['approve', 'transfer']);
    assert.equal(res.body.content.label, 'Token');
    assert.equal(res.body.content.enabled, false);
    assert.equal(res.body.content.createdAt, created.createdAt);
    const audited = (await auditOf(creds.app.id, 'auth_policy_row.updated')).filter(
      (a) => a.details.rowId === created.rowId,
    );
    assert.equal(audited.length, 1);
    assert.equal(audited[0].details.enabled, false);
  });

  test('422 CONTRACT_FUNCTION_UNKNOWN and 503 CONTRACT_INTROSPECTION_FAILED leave the row unchanged', async () => {
    const contract = installContract(svc, ['transfer']);
    const created = (await createRow({ contract, functions: ['transfer'] })).body.content;
    const unknown = await updateRow(created.rowId, { functions: ['burn'] });
    assert.equal(unknown.status, 422, unknown.text);
    assert.equal(unknown.body.code, 'CONTRACT_FUNCTION_UNKNOWN');
    assert.match(unknown.body.message, /no function: burn$/);
    const down = await withContractReads(svc, rpcDown, () => updateRow(created.rowId, { functions: ['transfer'] }));
    assert.equal(down.status, 503, down.text);
    assert.equal(down.body.code, 'CONTRACT_INTROSPECTION_FAILED');
    // enabling alone reads nothing from the chain
    const toggled = await withContractReads(svc, rpcDown, () => updateRow(created.rowId, { enabled: false }));
    assert.equal(toggled.status, 200, toggled.text);
    assert.deepEqual((await rowOf(created.rowId)).functions, ['transfer']);
  });

  test('400 SOROBAN_AUTH_WILDCARD_REQUIRES_ANY_FUNCTION: an any-contract row keeps only ["*"]', async () => {
    const created = (await createRow({ contract: '*', functions: ['*'] })).body.content;
    const res = await updateRow(created.rowId, { functions: ['transfer'] });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.code, 'SOROBAN_AUTH_WILDCARD_REQUIRES_ANY_FUNCTION');
  });

  test("404 AUTH_POLICY_ROW_NOT_FOUND: another app's row, an unknown id", async () => {
    const other = await seedCredentials(svc.deps.db);
    const theirs = (await createRow({ contract: '*', functions: ['*'] }, other.secretKey)).body.content;
    const res = await updateRow(theirs.rowId, { enabled: false });
    assert.equal(res.status, 404, res.text);
    assert.equal(res.body.code, 'AUTH_POLICY_ROW_NOT_FOUND');
    assert.equal((await updateRow('apr_doesnotexist0000000000', { enabled: false })).status, 404);
  });
});
