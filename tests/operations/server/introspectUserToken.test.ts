// introspectUserToken (POST /v1/tokens/introspect): check an end user's access token.
// Shared set-up: introspection.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSessionService } from '../../../src/domain/sessions/sessions';
import { seedCredentials } from '../../support/credentials';
import { signInOperator } from '../../support/operators';
import { signInUser } from '../../support/users';
import { captured, creds, introspect, svc, useService } from './introspection.setup';

describe('introspectUserToken', () => {
  useService();

  test("a live user's token: who, which app, network, wallet, provider and expiry", async () => {
    const user = await signInUser(svc, creds);
    const res = await introspect(user.accessToken);
    assert.equal(res.status, 200);
    assert.equal(res.body.code, 'SERVER_TOKEN_INTROSPECTED');
    const { expiresAt, ...rest } = res.body.content;
    assert.deepEqual(rest, {
      active: true,
      userId: user.userId,
      applicationId: creds.app.id,
      network: 'testnet',
      wallet: { publicKey: user.signIn.wallet.publicKey, funded: user.signIn.wallet.funded },
      authProvider: 'email',
    });
    const lifetime = Date.parse(expiresAt) - Date.now();
    assert.ok(lifetime > 14 * 60_000 && lifetime <= 15 * 60_000, `15-minute token (${lifetime} ms left)`);
  });

  test('an expired token: 401 SDK_AUTH_TOKEN_EXPIRED', async () => {
    const user = await signInUser(svc, creds);
    const sessions = createSessionService(svc.deps.secrets, { refreshReuseGraceSeconds: 10 });
    const expired = await sessions.tokens.sign(
      {
        audience: 'user',
        subjectId: user.userId,
        sessionId: user.sessionId,
        jkt: user.key.jkt,
        appId: creds.app.id,
        network: 'testnet',
      },
      new Date(Date.now() - 3_600_000),
      60,
    );
    const res = await introspect(expired);
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'SDK_AUTH_TOKEN_EXPIRED');
  });

  test('a signed-out session, a forged token, an operator token: 401 SDK_AUTH_INVALID_TOKEN', async () => {
    const user = await signInUser(svc, creds);
    await user.call('signOut', 'POST', '/v1/auth/logout');
    const [h, p] = (await signInUser(svc, creds)).accessToken.split('.');
    const operator = await signInOperator(svc);
    for (const token of [user.accessToken, `${h}.${p}.${'A'.repeat(86)}`, operator.accessToken, 'not-a-token']) {
      const res = await introspect(token);
      assert.equal(res.status, 401);
      assert.equal(res.body.code, 'SDK_AUTH_INVALID_TOKEN');
    }
  });

  test("another app's user token: 403 SDK_TOKEN_WRONG_APPLICATION", async () => {
    const otherApp = await seedCredentials(svc.deps.db);
    const stranger = await signInUser(svc, otherApp);
    const res = await introspect(stranger.accessToken);
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 'SDK_TOKEN_WRONG_APPLICATION');
    assert.equal((await introspect(stranger.accessToken, otherApp.secretKey)).status, 200);
  });

  test('access and refresh tokens never reach the log (sign-in, introspection, refresh, at trace level)', async () => {
    const user = await signInUser(svc, creds);
    assert.equal((await introspect(user.accessToken)).status, 200);
    const refreshed = await user.rawCall('POST', '/v1/auth/refresh', { body: { refreshToken: user.refreshToken } });
    assert.equal(refreshed.status, 200);
    const log = captured.lines.join('');
    assert.ok(log.length > 0, 'the service logged');
    for (const token of [
      user.accessToken,
      user.refreshToken,
      refreshed.body.content.accessToken,
      refreshed.body.content.refreshToken,
    ]) {
      assert.ok(!log.includes(token), 'a token is in the log');
    }
  });
});
