// Server API users (secret key), on real PostgreSQL: setting and clearing the app's own id for a user (unique within
// the app), looking a user up by it, and checking an end user's access token (valid, expired, signed out, another
// app's, not a user token).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSessionService } from '../../src/domain/sessions/sessions';
import { seedCredentials, type SeededCredentials } from '../support/credentials';
import { call } from '../support/http';
import { capturingLogger } from '../support/log';
import { signInOperator } from '../support/operators';
import { startTestService, type TestService } from '../support/service';
import { signInUser } from '../support/users';

describe('Server API: users by external id', () => {
  let svc: TestService;
  let creds: SeededCredentials;
  before(async () => {
    svc = await startTestService();
    creds = await seedCredentials(svc.deps.db);
  });
  after(async () => {
    await svc?.stop();
  });

  const setExternalId = (userId: string, externalId: string | null, key = creds.secretKey) =>
    call(svc.url, 'setUserExternalId', 'PUT', `/v1/users/${userId}/external-id`, {
      headers: { 'x-service-api-key': key },
      body: { externalId },
    });
  const getUser = (externalId: string, key = creds.secretKey) =>
    call(svc.url, 'getUser', 'GET', `/v1/users/${encodeURIComponent(externalId)}`, {
      headers: { 'x-service-api-key': key },
    });

  test('set, then get by it: the user with providers and wallet', async () => {
    const user = await signInUser(svc, creds);
    const set = await setExternalId(user.userId, 'customer-4711');
    assert.equal(set.status, 200);
    assert.equal(set.body.code, 'SERVER_USER_EXTERNAL_ID_SET');
    assert.equal(set.body.content.externalId, 'customer-4711');
    const got = await getUser('customer-4711');
    assert.equal(got.status, 200);
    assert.equal(got.body.code, 'SERVER_USER_FETCHED');
    const content = got.body.content;
    assert.equal(content.userId, user.userId);
    assert.equal(content.email, user.email);
    assert.deepEqual(content.providers, ['email']);
    assert.deepEqual(content.wallets, [user.signIn.wallet]);
    assert.ok(content.lastSeenAt);
    assert.deepEqual(set.body.content, content);
  });

  test('the next sign-in shows the externalId in the sign-in answer', async () => {
    const user = await signInUser(svc, creds);
    await setExternalId(user.userId, 'shown-at-sign-in');
    await svc.deps
      .db('email_codes')
      .where({ email: user.email })
      .update({ sent_at: new Date(Date.now() - 61_000) });
    const again = await signInUser(svc, creds, user.email);
    assert.equal(again.signIn.user.externalId, 'shown-at-sign-in');
  });

  test('the value the user already has: unchanged; null clears it (then getUser: 404 USER_NOT_FOUND)', async () => {
    const user = await signInUser(svc, creds);
    await setExternalId(user.userId, 'same-1');
    const same = await setExternalId(user.userId, 'same-1');
    assert.equal(same.status, 200);
    assert.equal(same.body.content.externalId, 'same-1');
    const cleared = await setExternalId(user.userId, null);
    assert.equal(cleared.body.content.externalId, null);
    const gone = await getUser('same-1');
    assert.equal(gone.status, 404);
    assert.equal(gone.body.code, 'USER_NOT_FOUND');
  });

  test("another user's externalId: 409 EXTERNAL_ID_TAKEN and nothing changes", async () => {
    const a = await signInUser(svc, creds);
    const b = await signInUser(svc, creds);
    await setExternalId(a.userId, 'taken');
    await setExternalId(b.userId, 'b-own');
    const res = await setExternalId(b.userId, 'taken');
    assert.equal(res.status, 409);
    assert.equal(res.body.code, 'EXTERNAL_ID_TAKEN');
    assert.equal((await getUser('taken')).body.content.userId, a.userId);
    assert.equal((await getUser('b-own')).body.content.userId, b.userId);
  });

  test("users and external ids of another app are not found with this app's key", async () => {
    const otherApp = await seedCredentials(svc.deps.db);
    const stranger = await signInUser(svc, otherApp);
    await setExternalId(stranger.userId, 'other-app-customer', otherApp.secretKey);
    const get = await getUser('other-app-customer');
    assert.equal(get.status, 404);
    assert.equal(get.body.code, 'USER_NOT_FOUND');
    const set = await setExternalId(stranger.userId, 'hijack');
    assert.equal(set.status, 404);
    assert.equal(set.body.code, 'USER_NOT_FOUND');
    assert.equal((await setExternalId('usr_doesnotexist00000000000', 'x')).body.code, 'USER_NOT_FOUND');
    // the same externalId may be used in each app
    const mine = await signInUser(svc, creds);
    assert.equal((await setExternalId(mine.userId, 'other-app-customer')).status, 200);
  });

  test('a malformed externalId: 400 VALIDATION_ERROR', async () => {
    const user = await signInUser(svc, creds);
    const res = await setExternalId(user.userId, 'has spaces');
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'VALIDATION_ERROR');
  });
});

describe('Server API: introspectUserToken', () => {
  let svc: TestService;
  let creds: SeededCredentials;
  const captured = capturingLogger();
  before(async () => {
    svc = await startTestService({}, { log: captured.log });
    creds = await seedCredentials(svc.deps.db);
  });
  after(async () => {
    await svc?.stop();
  });

  const introspect = (token: string, key = creds.secretKey) =>
    call(svc.url, 'introspectUserToken', 'POST', '/v1/tokens/introspect', {
      headers: { 'x-service-api-key': key },
      body: { token },
    });

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
