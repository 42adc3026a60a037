// deleteAuthPolicyRow (DELETE /v1/auth-policy/rows/{rowId}): the row is gone at once and the deletion audited; another
// app's row is not found. Set-up in authPolicy.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedCredentials } from '../../support/credentials';
import { auditOf, createRow, creds, deleteRow, listRows, svc, useService } from './authPolicy.setup';

describe('deleteAuthPolicyRow', () => {
  useService();

  test('200: deleted, no longer listed, audited; a second delete is 404', async () => {
    const created = (await createRow({ contract: '*', functions: ['*'] })).body.content;
    const res = await deleteRow(created.rowId);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'SERVER_AUTH_POLICY_ROW_DELETED');
    assert.deepEqual(res.body.content, { rowId: created.rowId, deleted: true });
    assert.ok(!(await listRows()).body.content.rows.some((r: any) => r.rowId === created.rowId));
    const audited = (await auditOf(creds.app.id, 'auth_policy_row.deleted')).filter(
      (a) => a.details.rowId === created.rowId,
    );
    assert.equal(audited.length, 1);
    const again = await deleteRow(created.rowId);
    assert.equal(again.status, 404, again.text);
    assert.equal(again.body.code, 'AUTH_POLICY_ROW_NOT_FOUND');
  });

  test("404: another app's row stays", async () => {
    const other = await seedCredentials(svc.deps.db);
    const theirs = (await createRow({ contract: '*', functions: ['*'] }, other.secretKey)).body.content;
    assert.equal((await deleteRow(theirs.rowId)).status, 404);
    assert.equal((await listRows(other.secretKey)).body.content.rows.length, 1);
  });
});
