// refreshSession (POST /v1/auth/refresh): refresh a session. Shared set-up: refresh.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedCredentials } from '../../support/credentials';
import { createDpopKey } from '../../support/dpop';
import { signInUser } from '../../support/users';
import { noGrace, refresh, svc, useService } from './refresh.setup';

describe('refreshSession', () => {
  useService();

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
