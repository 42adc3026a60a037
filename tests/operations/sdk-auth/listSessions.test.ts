// listSessions (GET /v1/auth/sessions): the session user's active sessions. Shared set-up: sessions.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { signInUser } from '../../support/users';
import { allowResend, refresh, svc, twoDevices, useService } from './sessions.setup';

describe('listSessions', () => {
  useService();

  test('the list shows the active sessions, most recently used first, the current one marked, with their client', async () => {
    const { a, b } = await twoDevices();
    const refreshed = await refresh(svc, a, a.refreshToken, { 'user-agent': 'DeviceA/1.0' });
    assert.equal(refreshed.status, 200);
    const res = await b.call('listSessions', 'GET', '/v1/auth/sessions');
    assert.equal(res.body.code, 'SDK_SESSIONS_LISTED');
    const sessions = res.body.content.sessions;
    assert.deepEqual(
      sessions.map((s: { sessionId: string; current: boolean }) => [s.sessionId, s.current]),
      [
        [a.sessionId, false],
        [b.sessionId, true],
      ],
      'A was used (refreshed) last',
    );
    assert.equal(sessions[0].userAgent, 'DeviceA/1.0');
    assert.match(sessions[0].ip, /127\.0\.0\.1|::1/);
    assert.ok(Date.parse(sessions[0].expiresAt) > Date.now());
    assert.ok(Date.parse(sessions[0].lastUsedAt) >= Date.parse(sessions[0].createdAt));
  });

  test('the list leaves out revoked and expired sessions and those of other users', async () => {
    const { creds, a, b } = await twoDevices();
    await signInUser(svc, creds);
    const email = a.email;
    await allowResend(svc, email);
    const expiring = await signInUser(svc, creds, email);
    await svc.deps
      .db('refresh_tokens')
      .where({ session_id: expiring.sessionId })
      .update({ expires_at: new Date(Date.now() - 1000) });
    await b.call('signOut', 'POST', '/v1/auth/logout');
    const res = await a.call('listSessions', 'GET', '/v1/auth/sessions');
    assert.deepEqual(
      res.body.content.sessions.map((s: { sessionId: string }) => s.sessionId),
      [a.sessionId],
    );
  });
});
