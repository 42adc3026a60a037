// End-user sessions on the SDK API, on real PostgreSQL: refresh rotation (one successor under 50 parallel uses, reuse
// after the grace revokes the family, the app's current lifetimes, tokens of another app refused), sign-out (this
// session or every session of the user in the app), the session list and revoking one session.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedCredentials } from '../support/credentials';
import { createDpopKey } from '../support/dpop';
import { sendWithProof, testEmail } from '../support/operators';
import { startTestService, type TestService } from '../support/service';
import { signInUser, type UserClient } from '../support/users';

/** refreshSession as `who` sends it: its publishable key, a proof by its DPoP key following its nonce. */
const refresh = (
  svc: TestService,
  who: Pick<UserClient, 'key' | 'state' | 'publishableKey'>,
  refreshToken: string,
  headers: Record<string, string> = {},
) =>
  sendWithProof(svc.url, who.key, who.state, 'POST', '/v1/auth/refresh', {
    headers: { ...headers, 'x-service-api-key': who.publishableKey },
    body: { refreshToken },
  });
/** Lets the address ask for a new code at once, for a second sign-in of one user. */
const allowResend = (svc: TestService, email: string) =>
  svc.deps
    .db('email_codes')
    .where({ email })
    .update({ sent_at: new Date(Date.now() - 61_000) });

describe('SDK session refresh', () => {
  let svc: TestService;
  let noGrace: TestService;
  before(async () => {
    svc = await startTestService();
    noGrace = await startTestService({ REFRESH_REUSE_GRACE_SECONDS: '0' });
  });
  after(async () => {
    await svc?.stop();
    await noGrace?.stop();
  });

  test('refresh answers new tokens for the same session; the new access token works, the old refresh token is rotated', async () => {
    const user = await signInUser(svc, await seedCredentials(svc.deps.db));
    const res = await refresh(svc, user, user.refreshToken);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'SDK_SESSION_REFRESHED');
    assert.equal(res.body.content.sessionId, user.sessionId);
    assert.notEqual(res.body.content.refreshToken, user.refreshToken);
    user.accessToken = res.body.content.accessToken;
    assert.equal((await user.call('listSessions', 'GET', '/v1/auth/sessions')).status, 200);
    const rows = await svc.deps.db('refresh_tokens').where({ session_id: user.sessionId });
    assert.equal(rows.filter((r) => r.rotated_at === null).length, 1);
  });

  test("refresh issues with the app's current lifetimes and marks the user seen", async () => {
    const creds = await seedCredentials(svc.deps.db);
    const user = await signInUser(svc, creds);
    await svc.deps
      .db('apps')
      .where({ id: creds.app.id })
      .update({ access_token_ttl_minutes: 7, refresh_token_ttl_days: 3 });
    await svc.deps
      .db('users')
      .where({ id: user.userId })
      .update({ last_seen_at: new Date('2030-01-01T00:00:00Z') });
    const started = Date.now();
    const res = await refresh(svc, user, user.refreshToken);
    assert.equal(res.body.content.expiresIn, 420);
    assert.ok(Math.abs(Date.parse(res.body.content.refreshTokenExpiresAt) - started - 3 * 86_400_000) < 60_000);
    const seen = (await svc.deps.db('users').where({ id: user.userId }).first()).last_seen_at as Date;
    assert.ok(Math.abs(seen.getTime() - started) < 60_000, 'last seen is now');
  });

  test('50 parallel refreshes with one token mint exactly one successor', async () => {
    const user = await signInUser(svc, await seedCredentials(svc.deps.db));
    await user.rawCall('GET', '/v1/auth/sessions'); // picks up the current nonce
    const results = await Promise.all(
      Array.from({ length: 50 }, () => {
        return refresh(svc, { ...user, state: { ...user.state } }, user.refreshToken);
      }),
    );
    for (const r of results.filter((r) => r.status !== 200)) assert.fail(`unexpected ${r.status} ${r.text}`);
    assert.equal(new Set(results.map((r) => r.body.content.refreshToken)).size, 1, 'one successor refresh token');
    const rows = await svc.deps.db('refresh_tokens').where({ session_id: user.sessionId });
    assert.equal(rows.length, 2, 'the original and one successor');
    assert.equal(rows.filter((r) => r.rotated_at === null).length, 1, 'one live token');
  });

  test('reuse of a rotated token after the grace: 401 SDK_REFRESH_TOKEN_REUSED and the whole family is revoked', async () => {
    const user = await signInUser(noGrace, await seedCredentials(noGrace.deps.db));
    const first = await refresh(noGrace, user, user.refreshToken);
    assert.equal(first.status, 200);
    await new Promise((r) => setTimeout(r, 20));
    const reuse = await refresh(noGrace, user, user.refreshToken);
    assert.equal(reuse.status, 401);
    assert.equal(reuse.body.code, 'SDK_REFRESH_TOKEN_REUSED');
    assert.equal(
      (await refresh(noGrace, user, first.body.content.refreshToken)).body.code,
      'SDK_REFRESH_TOKEN_INVALID',
      'the successor is dead too',
    );
    user.accessToken = first.body.content.accessToken;
    const res = await user.rawCall('GET', '/v1/auth/sessions');
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'SDK_AUTH_INVALID_TOKEN', 'and its access tokens');
  });

  test('unknown refresh token: SDK_REFRESH_TOKEN_INVALID; expired: SDK_REFRESH_TOKEN_EXPIRED; a proof by another key: SDK_AUTH_DPOP_INVALID', async () => {
    const user = await signInUser(svc, await seedCredentials(svc.deps.db));
    assert.equal((await refresh(svc, user, 'x'.repeat(43))).body.code, 'SDK_REFRESH_TOKEN_INVALID');
    assert.equal(
      (await refresh(svc, { ...user, key: await createDpopKey(), state: {} }, user.refreshToken)).body.code,
      'SDK_AUTH_DPOP_INVALID',
    );
    await svc.deps
      .db('refresh_tokens')
      .where({ session_id: user.sessionId })
      .update({ expires_at: new Date(Date.now() - 1000) });
    assert.equal((await refresh(svc, user, user.refreshToken)).body.code, 'SDK_REFRESH_TOKEN_EXPIRED');
  });

  test("another app's refresh token is unknown here, and its session is left as it was", async () => {
    const user = await signInUser(svc, await seedCredentials(svc.deps.db));
    const otherApp = await seedCredentials(svc.deps.db);
    const res = await refresh(svc, { ...user, publishableKey: otherApp.publishableKey }, user.refreshToken);
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'SDK_REFRESH_TOKEN_INVALID');
    assert.equal((await refresh(svc, user, user.refreshToken)).status, 200, 'the token was not rotated or revoked');
  });
});

describe('SDK sign-out, session list and revocation', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(async () => {
    await svc?.stop();
  });

  /** Two sessions of one user in one app (two devices). */
  async function twoDevices() {
    const creds = await seedCredentials(svc.deps.db);
    const email = testEmail('user');
    const a = await signInUser(svc, creds, email);
    await allowResend(svc, email);
    const b = await signInUser(svc, creds, email);
    return { creds, a, b };
  }

  test('sign-out ends this session at once (access and refresh tokens) and leaves the other device signed in', async () => {
    const { a, b } = await twoDevices();
    const out = await a.call('signOut', 'POST', '/v1/auth/logout');
    assert.equal(out.status, 200);
    assert.deepEqual(out.body.content, { everywhere: false, revokedSessions: 1 });
    assert.equal((await a.rawCall('GET', '/v1/auth/sessions')).body.code, 'SDK_AUTH_INVALID_TOKEN');
    assert.equal((await refresh(svc, a, a.refreshToken)).body.code, 'SDK_REFRESH_TOKEN_INVALID');
    assert.equal((await b.rawCall('GET', '/v1/auth/sessions')).status, 200);
  });

  test("sign-out everywhere ends every session of the user in the app, and no one else's", async () => {
    const { creds, a, b } = await twoDevices();
    const someoneElse = await signInUser(svc, creds);
    const out = await a.call('signOut', 'POST', '/v1/auth/logout', { body: { everywhere: true } });
    assert.deepEqual(out.body.content, { everywhere: true, revokedSessions: 2 });
    assert.equal((await b.rawCall('GET', '/v1/auth/sessions')).status, 401);
    assert.equal((await someoneElse.rawCall('GET', '/v1/auth/sessions')).status, 200);
  });

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
