// updateMember (PATCH /api/v1/apps/{appId}/members/{memberId}): change a member's role (owner only).
// Shared set-up: setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, developer, outsider, owner, owners, svc, teamApp, useService } from './setup';

describe('updateMember', () => {
  useService();

  test('the owner changes an admin to developer and back', async () => {
    const { appId, adminMemberId } = await teamApp();
    const down = await owner.call('updateMember', 'PATCH', `/api/v1/apps/${appId}/members/${adminMemberId}`, {
      body: { role: 'developer' },
    });
    assert.equal(down.status, 200);
    assert.equal(down.body.code, 'MEMBER_UPDATED');
    assert.equal(down.body.content.role, 'developer');
    assert.equal((await admin.call('getApp', 'GET', `/api/v1/apps/${appId}`)).body.content.role, 'developer');
    const up = await owner.call('updateMember', 'PATCH', `/api/v1/apps/${appId}/members/${adminMemberId}`, {
      body: { role: 'admin' },
    });
    assert.equal(up.body.content.role, 'admin');
  });

  test('ownership transfer: the member becomes owner, the caller admin, in one step; the new owner has the owner-only rights', async () => {
    const { appId, adminMemberId, ownerMemberId } = await teamApp();
    const res = await owner.call('updateMember', 'PATCH', `/api/v1/apps/${appId}/members/${adminMemberId}`, {
      body: { role: 'owner' },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.content.role, 'owner');
    assert.equal(res.body.content.operatorId, admin.operatorId);
    assert.deepEqual(await owners(appId), { members: [admin.operatorId], app: admin.operatorId });
    assert.equal((await owner.call('getApp', 'GET', `/api/v1/apps/${appId}`)).body.content.role, 'admin');
    const listed = await admin.call('listMembers', 'GET', `/api/v1/apps/${appId}/members`);
    assert.deepEqual(
      listed.body.content.members.slice(0, 1).map((m: any) => m.memberId),
      [adminMemberId],
      'the new owner is listed first',
    );

    const formerOwner = await owner.call('archiveApp', 'POST', `/api/v1/apps/${appId}/archive`);
    assert.equal(formerOwner.status, 403, 'the former owner lost the owner-only rights');
    const back = await admin.call('updateMember', 'PATCH', `/api/v1/apps/${appId}/members/${ownerMemberId}`, {
      body: { role: 'owner' },
    });
    assert.equal(back.status, 200, 'the new owner can transfer it back');
    assert.deepEqual(await owners(appId), { members: [owner.operatorId], app: owner.operatorId });
  });

  test('the owner cannot change their own role to anything else: 409 LAST_OWNER; setting owner again changes nothing', async () => {
    const { appId, ownerMemberId } = await teamApp();
    for (const role of ['admin', 'developer']) {
      const res = await owner.call('updateMember', 'PATCH', `/api/v1/apps/${appId}/members/${ownerMemberId}`, {
        body: { role },
      });
      assert.equal(res.status, 409);
      assert.equal(res.body.code, 'LAST_OWNER');
    }
    const same = await owner.call('updateMember', 'PATCH', `/api/v1/apps/${appId}/members/${ownerMemberId}`, {
      body: { role: 'owner' },
    });
    assert.equal(same.status, 200);
    assert.deepEqual(await owners(appId), { members: [owner.operatorId], app: owner.operatorId });
  });

  test('404 MEMBER_NOT_FOUND for an unknown id or a member of another app; 400 for a bad role or malformed id', async () => {
    const { appId } = await teamApp();
    const other = await teamApp();
    for (const memberId of ['mem_unknown000000000000000', other.developerMemberId]) {
      const res = await owner.call('updateMember', 'PATCH', `/api/v1/apps/${appId}/members/${memberId}`, {
        body: { role: 'admin' },
      });
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'MEMBER_NOT_FOUND');
    }
    const badRole = await owner.call(
      'updateMember',
      'PATCH',
      `/api/v1/apps/${appId}/members/${other.developerMemberId}`,
      { body: { role: 'superuser' } },
    );
    assert.equal(badRole.status, 400);
    assert.ok(badRole.body.details.fieldErrors.role);
    const badId = await owner.call(
      'updateMember',
      'PATCH',
      `/api/v1/apps/${appId}/members/op_${owner.operatorId.slice(3)}`,
      { body: { role: 'admin' } },
    );
    assert.equal(badId.status, 400);
    assert.ok(badId.body.details.fieldErrors['path.memberId']);
  });

  test('admins and developers get 403 FORBIDDEN (no self-promotion); another operator gets 404', async () => {
    const { appId, adminMemberId, developerMemberId } = await teamApp();
    for (const [client, memberId] of [
      [admin, adminMemberId],
      [developer, developerMemberId],
      [admin, developerMemberId],
    ] as const) {
      const res = await client.call('updateMember', 'PATCH', `/api/v1/apps/${appId}/members/${memberId}`, {
        body: { role: 'owner' },
      });
      assert.equal(res.status, 403);
      assert.equal(res.body.code, 'FORBIDDEN');
    }
    const cross = await outsider.call('updateMember', 'PATCH', `/api/v1/apps/${appId}/members/${developerMemberId}`, {
      body: { role: 'admin' },
    });
    assert.equal(cross.status, 404);
    assert.equal(cross.body.code, 'APPLICATION_NOT_FOUND');
    assert.deepEqual(await owners(appId), { members: [owner.operatorId], app: owner.operatorId });
  });

  test('concurrency: two transfers to different members at once leave exactly one owner (the other answers 403)', async () => {
    for (let round = 0; round < 3; round++) {
      const { appId, adminMemberId, developerMemberId } = await teamApp();
      const results = await Promise.all(
        [adminMemberId, developerMemberId].map((memberId) =>
          owner.call('updateMember', 'PATCH', `/api/v1/apps/${appId}/members/${memberId}`, {
            body: { role: 'owner' },
          }),
        ),
      );
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 403], results.map((r) => r.text).join('\n'));
      const winner = results.find((r) => r.status === 200)!.body.content.operatorId;
      assert.deepEqual(await owners(appId), { members: [winner], app: winner });
      const formerOwner = await svc.deps
        .db('app_members')
        .where({ app_id: appId, operator_id: owner.operatorId })
        .first('role');
      assert.equal(formerOwner.role, 'admin');
    }
  });
});
