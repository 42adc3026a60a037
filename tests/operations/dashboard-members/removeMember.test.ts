// removeMember (DELETE /api/v1/apps/{appId}/members/{memberId}): remove a team member (owner only).
// Shared set-up: setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testEmail } from '../../support/operators';
import { admin, createApp, developer, invite, outsider, owner, owners, svc, teamApp, useService } from './setup';

describe('removeMember', () => {
  useService();

  test('removes a member (their access ends at once) and cancels a pending invitation', async () => {
    const { appId, developerMemberId } = await teamApp();
    const res = await owner.call('removeMember', 'DELETE', `/api/v1/apps/${appId}/members/${developerMemberId}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.code, 'MEMBER_REMOVED');
    assert.deepEqual(res.body.content, { memberId: developerMemberId, removed: true });
    const gone = await developer.call('getApp', 'GET', `/api/v1/apps/${appId}`);
    assert.equal(gone.status, 404);
    assert.equal(gone.body.code, 'APPLICATION_NOT_FOUND');
    assert.equal(
      (await developer.call('getCurrentOperator', 'GET', '/api/v1/me')).status,
      200,
      'their session stays valid',
    );

    const pending = await invite(owner, appId, testEmail('cancelled'), 'admin');
    assert.equal(
      (await owner.call('removeMember', 'DELETE', `/api/v1/apps/${appId}/members/${pending.memberId}`)).status,
      200,
    );
    const again = await owner.call('removeMember', 'DELETE', `/api/v1/apps/${appId}/members/${pending.memberId}`);
    assert.equal(again.status, 404);
    assert.equal(again.body.code, 'MEMBER_NOT_FOUND');
  });

  test('the owner cannot remove themselves: 409 LAST_OWNER', async () => {
    const { appId, ownerMemberId } = await teamApp();
    const res = await owner.call('removeMember', 'DELETE', `/api/v1/apps/${appId}/members/${ownerMemberId}`);
    assert.equal(res.status, 409);
    assert.equal(res.body.code, 'LAST_OWNER');
    assert.deepEqual(await owners(appId), { members: [owner.operatorId], app: owner.operatorId });
  });

  test('admins and developers get 403; another operator 404; a member of another app 404 MEMBER_NOT_FOUND', async () => {
    const { appId, adminMemberId, developerMemberId } = await teamApp();
    for (const client of [admin, developer]) {
      const res = await client.call('removeMember', 'DELETE', `/api/v1/apps/${appId}/members/${developerMemberId}`);
      assert.equal(res.status, 403);
      assert.equal(res.body.code, 'FORBIDDEN');
    }
    const cross = await outsider.call('removeMember', 'DELETE', `/api/v1/apps/${appId}/members/${adminMemberId}`);
    assert.equal(cross.status, 404);
    assert.equal(cross.body.code, 'APPLICATION_NOT_FOUND');
    const outsiderApp = await createApp(outsider);
    const foreign = await outsider.call(
      'removeMember',
      'DELETE',
      `/api/v1/apps/${outsiderApp}/members/${adminMemberId}`,
    );
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.code, 'MEMBER_NOT_FOUND');
    assert.equal((await svc.deps.db('app_members').where({ app_id: appId })).length, 3);
  });
});
