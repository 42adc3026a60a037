// listMembers (GET /api/v1/apps/{appId}/members): list an app's team members. Shared set-up: setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testEmail } from '../../support/operators';
import { admin, developer, invite, outsider, owner, teamApp, useService } from './setup';

describe('listMembers', () => {
  useService();

  test('every member sees the whole team, owner first, pending invitations included', async () => {
    const { appId } = await teamApp();
    const pending = testEmail('pending');
    await invite(owner, appId, pending, 'developer');
    for (const client of [owner, admin, developer]) {
      const res = await client.call('listMembers', 'GET', `/api/v1/apps/${appId}/members`);
      assert.equal(res.status, 200);
      assert.equal(res.body.code, 'MEMBERS_LISTED');
      assert.deepEqual(
        res.body.content.members.map((m: any) => [m.email, m.role]),
        [
          [owner.email, 'owner'],
          [admin.email, 'admin'],
          [developer.email, 'developer'],
          [pending, 'developer'],
        ],
      );
      assert.equal(res.body.content.members.at(-1).joinedAt, null);
    }
  });

  test("another operator's app: 404 APPLICATION_NOT_FOUND", async () => {
    const { appId } = await teamApp();
    const res = await outsider.call('listMembers', 'GET', `/api/v1/apps/${appId}/members`);
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'APPLICATION_NOT_FOUND');
  });
});
