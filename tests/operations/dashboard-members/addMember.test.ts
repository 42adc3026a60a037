// addMember (POST /api/v1/apps/{appId}/members): invite a team member (owner only). Shared set-up: setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { addMember } from '../../../src/operations/dashboard-members/addMember';
import { outboxFor, signInOperator, testEmail } from '../../support/operators';
import { admin, createApp, developer, outsider, owner, svc, teamApp, useService } from './setup';

describe('addMember', () => {
  useService();

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
