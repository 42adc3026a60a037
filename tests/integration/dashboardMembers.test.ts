// Dashboard members over HTTP with real operator sessions, every answer checked against the contract: listing (any
// member), invitations by email (owner only; an operator record for a new address, the invitation mailed after
// commit, joinedAt set at sign-in), role changes and ownership transfer (exactly one owner, LAST_OWNER), removal,
// cross-operator isolation, archived apps, and concurrency on real PostgreSQL (two transfers at once, two invitations
// of one address at once).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { addMember } from '../../src/operations/dashboard-members/addMember';
import { outboxFor, signInOperator, testEmail, type OperatorClient } from '../support/operators';
import { startTestService, type TestService } from '../support/service';

describe('Dashboard members', () => {
  let svc: TestService;
  let owner: OperatorClient;
  let admin: OperatorClient;
  let developer: OperatorClient;
  let outsider: OperatorClient;

  async function createApp(client: OperatorClient, name = 'Team app'): Promise<string> {
    const res = await client.call('createApp', 'POST', '/api/v1/apps', { body: { name, network: 'testnet' } });
    assert.equal(res.status, 201, res.text);
    return res.body.content.appId;
  }

  async function invite(
    client: OperatorClient,
    appId: string,
    email: string,
    role: 'admin' | 'developer',
  ): Promise<any> {
    const res = await client.call('addMember', 'POST', `/api/v1/apps/${appId}/members`, { body: { email, role } });
    assert.equal(res.status, 201, res.text);
    return res.body.content;
  }

  /** A new app of `owner` with `admin` and `developer` on its team; returns the app id and the member ids. */
  async function teamApp(): Promise<{
    appId: string;
    ownerMemberId: string;
    adminMemberId: string;
    developerMemberId: string;
  }> {
    const appId = await createApp(owner);
    const adminMember = await invite(owner, appId, admin.email, 'admin');
    const developerMember = await invite(owner, appId, developer.email, 'developer');
    const list = await owner.call('listMembers', 'GET', `/api/v1/apps/${appId}/members`);
    return {
      appId,
      ownerMemberId: list.body.content.members[0].memberId,
      adminMemberId: adminMember.memberId,
      developerMemberId: developerMember.memberId,
    };
  }

  async function owners(appId: string): Promise<{ members: string[]; app: string }> {
    const members = await svc.deps.db('app_members').where({ app_id: appId, role: 'owner' }).pluck('operator_id');
    const app = (await svc.deps.db('apps').where({ id: appId }).first()).owner_operator_id;
    return { members, app };
  }

  before(async () => {
    svc = await startTestService();
    [owner, admin, developer, outsider] = await Promise.all([
      signInOperator(svc),
      signInOperator(svc),
      signInOperator(svc),
      signInOperator(svc),
    ]);
  });
  after(async () => {
    await svc?.stop();
  });

  describe('listMembers', () => {
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

  describe('addMember', () => {
    test('invites a new address: operator record created (lower-cased), joinedAt null, invitation mailed; joinedAt is set when they sign in', async () => {
      const appId = await createApp(owner, 'Invite app');
      const email = testEmail('grace');
      const res = await owner.call('addMember', 'POST', `/api/v1/apps/${appId}/members`, {
        body: { email: email.toUpperCase(), role: 'developer' },
      });
      assert.equal(res.status, 201);
      assert.equal(res.body.code, 'MEMBER_ADDED');
      const member = res.body.content;
      assert.match(member.memberId, /^mem_[0-9A-Za-z]+$/);
      assert.equal(member.email, email);
      assert.equal(member.role, 'developer');
      assert.equal(member.joinedAt, null);
      const operator = await svc.deps.db('operators').where({ email }).first();
      assert.equal(operator.id, member.operatorId);

      const invitation = outboxFor(svc, email).find((m) => /invited/i.test(m.subject));
      assert.ok(invitation, 'an invitation was mailed');
      assert.match(invitation.subject, /Invite app/);
      assert.match(invitation.text, /developer/);

      const grace = await signInOperator(svc, email);
      assert.equal(grace.operatorId, member.operatorId, 'signing in uses the invited operator record');
      const listed = await owner.call('listMembers', 'GET', `/api/v1/apps/${appId}/members`);
      const joined = listed.body.content.members.find((m: any) => m.memberId === member.memberId);
      assert.ok(joined.joinedAt, 'joinedAt is set at sign-in');
      assert.ok(Date.parse(joined.joinedAt) >= Date.parse(joined.invitedAt));
      const apps = await grace.call('listApps', 'GET', '/api/v1/apps');
      assert.deepEqual(
        apps.body.content.apps.map((a: any) => [a.appId, a.role]),
        [[appId, 'developer']],
      );
    });

    test('409 MEMBER_ALREADY_EXISTS for a member, whatever the case of the address (the owner included)', async () => {
      const { appId } = await teamApp();
      for (const email of [admin.email.toUpperCase(), owner.email]) {
        const res = await owner.call('addMember', 'POST', `/api/v1/apps/${appId}/members`, {
          body: { email, role: 'developer' },
        });
        assert.equal(res.status, 409);
        assert.equal(res.body.code, 'MEMBER_ALREADY_EXISTS');
      }
      assert.equal((await svc.deps.db('app_members').where({ app_id: appId })).length, 3);
    });

    test('400 VALIDATION_ERROR for a bad address, the owner role, or a missing field', async () => {
      const appId = await createApp(owner);
      const cases: [unknown, string][] = [
        [{ email: 'not-an-address', role: 'developer' }, 'email'],
        [{ email: testEmail(), role: 'owner' }, 'role'],
        [{ email: testEmail() }, 'role'],
        [{ role: 'admin' }, 'email'],
      ];
      for (const [body, field] of cases) {
        const res = await owner.call('addMember', 'POST', `/api/v1/apps/${appId}/members`, { body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.ok(res.body.details.fieldErrors[field], JSON.stringify(res.body.details));
      }
      assert.equal((await svc.deps.db('app_members').where({ app_id: appId })).length, 1);
    });

    test('admins and developers get 403 FORBIDDEN; another operator and an archived app get 404', async () => {
      const { appId } = await teamApp();
      for (const client of [admin, developer]) {
        const res = await client.call('addMember', 'POST', `/api/v1/apps/${appId}/members`, {
          body: { email: testEmail(), role: 'developer' },
        });
        assert.equal(res.status, 403);
        assert.equal(res.body.code, 'FORBIDDEN');
      }
      const cross = await outsider.call('addMember', 'POST', `/api/v1/apps/${appId}/members`, {
        body: { email: outsider.email, role: 'admin' },
      });
      assert.equal(cross.status, 404);
      assert.equal(cross.body.code, 'APPLICATION_NOT_FOUND');
      await owner.call('archiveApp', 'POST', `/api/v1/apps/${appId}/archive`);
      const archived = await owner.call('addMember', 'POST', `/api/v1/apps/${appId}/members`, {
        body: { email: testEmail(), role: 'developer' },
      });
      assert.equal(archived.status, 404);
      assert.equal(archived.body.code, 'APPLICATION_NOT_FOUND');
      assert.equal((await svc.deps.db('app_members').where({ app_id: appId })).length, 3);
    });

    test('a mail failure does not undo the membership (it is logged)', async () => {
      const appId = await createApp(owner);
      const logged: unknown[] = [];
      const log = pino({ level: 'warn' }, { write: (line: string) => void logged.push(JSON.parse(line)) });
      const failingMailer = {
        description: 'failing',
        close: async () => {},
        send: async () => Promise.reject(new Error('SMTP is down')),
      };
      const handler = addMember({ db: svc.deps.db, clock: svc.deps.clock, mailer: failingMailer });
      const email = testEmail('unmailed');
      const result = await handler({
        operationId: 'addMember',
        auth: { operator: { operatorId: owner.operatorId, sessionId: owner.sessionId } },
        body: { email, role: 'admin' },
        path: { appId },
        query: undefined,
        headers: {},
        ip: '127.0.0.1',
        requestId: 'req_test',
        log,
      });
      assert.equal(result.content.email, email);
      const listed = await owner.call('listMembers', 'GET', `/api/v1/apps/${appId}/members`);
      assert.ok(listed.body.content.members.some((m: any) => m.email === email));
      assert.equal(logged.length, 1);
    });

    test('concurrency: the same address invited twice at once: exactly one 201, the other 409', async () => {
      const appId = await createApp(owner);
      const email = testEmail('twice');
      const results = await Promise.all(
        Array.from({ length: 2 }, () =>
          owner.call('addMember', 'POST', `/api/v1/apps/${appId}/members`, { body: { email, role: 'developer' } }),
        ),
      );
      assert.deepEqual(results.map((r) => r.status).sort(), [201, 409]);
      assert.equal((await svc.deps.db('operators').where({ email })).length, 1);
      assert.equal((await svc.deps.db('app_members').where({ app_id: appId })).length, 2);
    });
  });

  describe('updateMember', () => {
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

  describe('removeMember', () => {
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
});
