// deleteAppAuthPolicyRow (DELETE /api/v1/apps/{appId}/auth-policy/rows/{rowId}): a member deletes a row at once;
// audited. Set-up in setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { auditOf, createRow, deleteRow, developer, listRows, outsider, owner, teamApp, useService } from './setup';

describe('deleteAppAuthPolicyRow', () => {
  useService();

  test('200: gone, audited; then 404; an outsider 404 APPLICATION_NOT_FOUND', async () => {
    const appId = await teamApp();
    const row = (await createRow(owner, appId, { contract: '*', functions: ['*'] })).body.content;
    const foreign = await deleteRow(outsider, appId, row.rowId);
    assert.equal(foreign.status, 404, foreign.text);
    assert.equal(foreign.body.code, 'APPLICATION_NOT_FOUND');
    const res = await deleteRow(developer, appId, row.rowId);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'AUTH_POLICY_ROW_DELETED');
    assert.deepEqual(res.body.content, { rowId: row.rowId, deleted: true });
    assert.deepEqual((await listRows(owner, appId)).body.content.rows, []);
    const [audited] = await auditOf(appId, 'auth_policy_row.deleted');
    assert.equal(audited?.actor_id, developer.operatorId);
    const again = await deleteRow(owner, appId, row.rowId);
    assert.equal(again.status, 404, again.text);
    assert.equal(again.body.code, 'AUTH_POLICY_ROW_NOT_FOUND');
  });
});
