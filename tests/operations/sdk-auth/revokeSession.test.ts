// revokeSession (DELETE /v1/auth/sessions/{sessionId}): revoke one of the user's sessions.
// Shared set-up: sessions.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { signInUser } from '../../support/users';
import { allowResend, refresh, svc, twoDevices, useService } from './sessions.setup';

describe('revokeSession', () => {
  useService();

  test("revoking another of the user's sessions ends it; the caller's stays", async () => {
    const { a, b } = await twoDevices();
    const res = await a.call('revokeSession', 'DELETE', `/v1/auth/sessions/${b.sessionId}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.content, { sessionId: b.sessionId, revoked: true });
    assert.equal((await b.rawCall('GET', '/v1/auth/sessions')).body.code, 'SDK_AUTH_INVALID_TOKEN');
    assert.equal((await refresh(svc, b, b.refreshToken)).body.code, 'SDK_REFRESH_TOKEN_INVALID');
    assert.equal((await a.rawCall('GET', '/v1/auth/sessions')).status, 200);
    const again = await a.call('revokeSession', 'DELETE', `/v1/auth/sessions/${b.sessionId}`);
    assert.equal(again.status, 404);
    assert.equal(again.body.code, 'SDK_SESSION_NOT_FOUND', 'a revoked session is not found');
  });

  test("another user's session, an unknown id and an expired session: 404 SDK_SESSION_NOT_FOUND, nothing revoked", async () => {
    const { creds, a } = await twoDevices();
    const other = await signInUser(svc, creds);
    for (const sessionId of [other.sessionId, 'ses_doesnotexist0000000000']) {
      const res = await a.call('revokeSession', 'DELETE', `/v1/auth/sessions/${sessionId}`);
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'SDK_SESSION_NOT_FOUND');
    }
    assert.equal((await other.rawCall('GET', '/v1/auth/sessions')).status, 200, "the other user's session is alive");
    await allowResend(svc, a.email);
    const stale = await signInUser(svc, creds, a.email);
    await svc.deps
      .db('refresh_tokens')
      .where({ session_id: stale.sessionId })
      .update({ expires_at: new Date(Date.now() - 1000) });
    assert.equal(
      (await a.call('revokeSession', 'DELETE', `/v1/auth/sessions/${stale.sessionId}`)).body.code,
      'SDK_SESSION_NOT_FOUND',
    );
  });

  test('revoking the current session is signing out', async () => {
    const { a } = await twoDevices();
    assert.equal((await a.call('revokeSession', 'DELETE', `/v1/auth/sessions/${a.sessionId}`)).status, 200);
    assert.equal((await a.rawCall('GET', '/v1/auth/sessions')).body.code, 'SDK_AUTH_INVALID_TOKEN');
  });
});
