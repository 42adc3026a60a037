// updateAppAuthPolicyRow (PATCH /api/v1/apps/{appId}/auth-policy/rows/{rowId}): a member changes a row; a row of
// another app is not found through this app. Set-up in setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { installContract } from '../../support/sorobanAuth';
import { auditOf, createRow, developer, outsider, owner, svc, teamApp, updateRow, useService } from './setup';

describe('updateAppAuthPolicyRow', () => {
  useService();

  test('200: functions re-read from the chain, enabled and label; audited', async () => {
    const appId = await teamApp();
    const contract = installContract(svc, ['transfer', 'approve']);
    const row = (await createRow(owner, appId, { contract, functions: ['transfer'] })).body.content;
    const res = await updateRow(developer, appId, row.rowId, { functions: ['approve'], enabled: false, label: 'x' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'AUTH_POLICY_ROW_UPDATED');
    assert.deepEqual(
      [res.body.content.functions, res.body.content.enabled, res.body.content.label],
      [['approve'], false, 'x'],
    );
    const unknown = await updateRow(developer, appId, row.rowId, { functions: ['mint'] });
    assert.equal(unknown.status, 422, unknown.text);
    assert.equal(unknown.body.code, 'CONTRACT_FUNCTION_UNKNOWN');
    assert.equal((await auditOf(appId, 'auth_policy_row.updated')).length, 1);
  });

  test("404: another app's row through this app, and an outsider", async () => {
    const [mine, theirs] = [await teamApp(), await teamApp()];
    const row = (await createRow(owner, theirs, { contract: '*', functions: ['*'] })).body.content;
    const cross = await updateRow(owner, mine, row.rowId, { enabled: false });
    assert.equal(cross.status, 404, cross.text);
    assert.equal(cross.body.code, 'AUTH_POLICY_ROW_NOT_FOUND');
    const foreign = await updateRow(outsider, theirs, row.rowId, { enabled: false });
    assert.equal(foreign.body.code, 'APPLICATION_NOT_FOUND');
  });
});
