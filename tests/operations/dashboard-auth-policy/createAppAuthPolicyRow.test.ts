// createAppAuthPolicyRow (POST /api/v1/apps/{appId}/auth-policy/rows): a member adds a row whose contract is read
// from the chain; the operator is the audited actor; the row-save errors answer as on the Server API. Set-up in
// setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { installContract, unknownContract } from '../../support/sorobanAuth';
import { auditOf, createRow, developer, outsider, owner, svc, teamApp, useService } from './setup';

describe('createAppAuthPolicyRow', () => {
  useService();

  test('201 for a member; audited with the operator as actor', async () => {
    const appId = await teamApp();
    const contract = installContract(svc, ['transfer', 'approve']);
    const res = await createRow(developer, appId, { contract, functions: ['transfer'], label: 'Token' });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.code, 'AUTH_POLICY_ROW_CREATED');
    assert.deepEqual(res.body.content.functions, ['transfer']);
    const [audited] = await auditOf(appId, 'auth_policy_row.created');
    assert.equal(audited?.actor_type, 'operator');
    assert.equal(audited?.actor_id, developer.operatorId);
    assert.equal(audited?.details.rowId, res.body.content.rowId);
  });

  test('the row-save errors: 422 CONTRACT_FUNCTION_UNKNOWN, 422 CONTRACT_NOT_FOUND, 400 wildcard', async () => {
    const appId = await teamApp();
    const contract = installContract(svc, ['transfer']);
    const unknown = await createRow(owner, appId, { contract, functions: ['approve'] });
    assert.equal(unknown.status, 422, unknown.text);
    assert.equal(unknown.body.code, 'CONTRACT_FUNCTION_UNKNOWN');
    assert.match(unknown.body.message, /no function: approve$/);
    const missing = await createRow(owner, appId, { contract: unknownContract(), functions: ['transfer'] });
    assert.equal(missing.body.code, 'CONTRACT_NOT_FOUND');
    const wildcard = await createRow(owner, appId, { contract: '*', functions: ['transfer'] });
    assert.equal(wildcard.status, 400, wildcard.text);
    assert.equal(wildcard.body.code, 'SOROBAN_AUTH_WILDCARD_REQUIRES_ANY_FUNCTION');
  });

  test('404 APPLICATION_NOT_FOUND for an outsider; nothing saved', async () => {
    const appId = await teamApp();
    const res = await createRow(outsider, appId, { contract: '*', functions: ['*'] });
    assert.equal(res.status, 404, res.text);
    assert.equal(res.body.code, 'APPLICATION_NOT_FOUND');
    assert.equal((await svc.deps.db('auth_policy_rows').where({ app_id: appId })).length, 0);
  });
});
