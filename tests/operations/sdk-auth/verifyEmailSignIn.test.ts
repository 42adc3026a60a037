// verifyEmailSignIn (POST /v1/auth/email/verify): sign in with an email code. Shared set-up: emailSignIn.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../src/domain/errors';
import { call } from '../../support/http';
import { createDpopKey, dpopProof } from '../../support/dpop';
import { latestCode, sendWithProof, signInOperator, testEmail } from '../../support/operators';
import { signInUser, startUserEmailSignIn } from '../../support/users';
import { allowResend, freshApp, svc, useService, verify, wrongCodeFor } from './emailSignIn.setup';

describe('verifyEmailSignIn', () => {
  useService();

  test('the first sign-in creates the user, an identity and a wallet on the app network; the tokens work', async () => {
    const creds = await freshApp();
    const user = await signInUser(svc, creds);
    const { user: shown, wallet, tokens } = user.signIn;
    assert.match(shown.userId, /^usr_[0-9A-Za-z]{22}$/);
    assert.equal(shown.email, user.email);
    assert.equal('externalId' in shown, false, 'no externalId until the app sets one');
    assert.match(wallet.walletId, /^wal_/);
    assert.match(wallet.publicKey, /^G[A-Z2-7]{55}$/);
    assert.equal(wallet.network, 'testnet');
    assert.equal(tokens.tokenType, 'DPoP');
    const row = await svc.deps.db('users').where({ id: shown.userId }).first();
    assert.equal(row.app_id, creds.app.id);
    assert.equal(row.email, user.email);
    assert.equal(row.last_provider, 'email');
    assert.ok(row.last_seen_at, 'the sign-in is the last time the user was seen');
    assert.deepEqual(
      (await svc.deps.db('user_identities').where({ user_id: shown.userId }).select('provider', 'subject')).map((r) => [
        r.provider,
        r.subject,
      ]),
      [['email', user.email]],
    );
    const session = await svc.deps.db('sessions').where({ id: tokens.sessionId }).first();
    assert.deepEqual(
      [session.audience, session.subject_id, session.app_id, session.jkt, session.auth_method],
      ['user', shown.userId, creds.app.id, user.key.jkt, 'email'],
    );
    const listed = await user.call('listSessions', 'GET', '/v1/auth/sessions');
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.content.sessions.map((s: { sessionId: string; current: boolean }) => [s.sessionId, s.current]),
      [[tokens.sessionId, true]],
    );
  });

  test('a second sign-in with the same address (other case) reaches the same user and wallet, in a new session', async () => {
    const creds = await freshApp();
    const email = testEmail('user');
    const first = await signInUser(svc, creds, email);
    await allowResend(email);
    const second = await signInUser(svc, creds, email.toUpperCase());
    assert.equal(second.userId, first.userId);
    assert.deepEqual(second.signIn.wallet, first.signIn.wallet);
    assert.notEqual(second.sessionId, first.sessionId);
    assert.equal((await svc.deps.db('users').where({ app_id: creds.app.id })).length, 1);
  });

  test('the same address in another app is another user with another wallet', async () => {
    const email = testEmail('user');
    const a = await signInUser(svc, await freshApp(), email);
    const b = await signInUser(svc, await freshApp(), email);
    assert.notEqual(a.userId, b.userId);
    assert.notEqual(a.signIn.wallet.publicKey, b.signIn.wallet.publicKey);
  });

  test('brute force stops at 5 wrong attempts: the right code is refused afterwards', async () => {
    const creds = await freshApp();
    const email = testEmail('user');
    await startUserEmailSignIn(svc, creds.publishableKey, email);
    const code = latestCode(svc, email);
    const key = await createDpopKey();
    for (let i = 0; i < 5; i++) {
      const res = await verify(creds, { email, code: wrongCodeFor(code) }, key);
      assert.equal(res.status, 401);
      assert.equal(res.body.code, 'EMAIL_CODE_INVALID');
    }
    const right = await verify(creds, { email, code }, key);
    assert.equal(right.status, 401);
    assert.equal(right.body.code, 'EMAIL_CODE_INVALID');
    assert.equal((await svc.deps.db('users').where({ app_id: creds.app.id })).length, 0, 'nobody signed in');
  });

  test('a code works once', async () => {
    const creds = await freshApp();
    const user = await signInUser(svc, creds);
    const res = await verify(creds, { email: user.email, code: latestCode(svc, user.email) });
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'EMAIL_CODE_INVALID');
  });

  test("a code of one app signs in to no other app, and an operator's code to no app", async () => {
    const a = await freshApp();
    const b = await freshApp();
    const email = testEmail('user');
    await startUserEmailSignIn(svc, a.publishableKey, email);
    const res = await verify(b, { email, code: latestCode(svc, email) });
    assert.equal(res.body.code, 'EMAIL_CODE_INVALID');
    const operator = await signInOperator(svc);
    const viaOperatorCode = await verify(a, { email: operator.email, code: latestCode(svc, operator.email) });
    assert.equal(viaOperatorCode.body.code, 'EMAIL_CODE_INVALID');
  });

  test('more than 30 verifications from one IP in 10 minutes for one app: 429 RATE_LIMITED', async () => {
    const creds = await freshApp();
    const key = await createDpopKey();
    const state = {};
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) {
      const res = await sendWithProof(svc.url, key, state, 'POST', '/v1/auth/email/verify', {
        headers: { 'x-service-api-key': creds.publishableKey },
        body: { email: testEmail('spray'), code: '000000' },
      });
      statuses.push(res.status);
    }
    assert.deepEqual(statuses.slice(0, 30), Array(30).fill(401));
    assert.equal(statuses[30], 429);
    // another app's users are not affected
    assert.equal((await verify(await freshApp(), { email: testEmail('spray'), code: '000000' })).status, 401);
  });

  test('verify without a DPoP proof: 401 SDK_AUTH_DPOP_REQUIRED, and the code stays usable', async () => {
    const creds = await freshApp();
    const email = testEmail('user');
    await startUserEmailSignIn(svc, creds.publishableKey, email);
    const code = latestCode(svc, email);
    const res = await call(svc.url, 'verifyEmailSignIn', 'POST', '/v1/auth/email/verify', {
      headers: { 'x-service-api-key': creds.publishableKey },
      body: { email, code },
    });
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'SDK_AUTH_DPOP_REQUIRED');
    assert.equal((await verify(creds, { email, code })).status, 200);
  });

  test("the tokens are bound to the sign-in proof's key: a call signed by another key is refused", async () => {
    const user = await signInUser(svc, await freshApp());
    const other = await createDpopKey();
    const nonce = (await user.rawCall('GET', '/v1/auth/sessions')).headers.get('dpop-nonce')!;
    const proof = await dpopProof(other, {
      method: 'GET',
      url: `${svc.url}/v1/auth/sessions`,
      accessToken: user.accessToken,
      nonce,
    });
    const res = await call(svc.url, 'listSessions', 'GET', '/v1/auth/sessions', {
      headers: { 'x-service-api-key': user.publishableKey, authorization: `DPoP ${user.accessToken}`, dpop: proof },
    });
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'SDK_AUTH_DPOP_INVALID');
  });

  test("the session takes the app's token lifetimes", async () => {
    const creds = await freshApp();
    await svc.deps
      .db('apps')
      .where({ id: creds.app.id })
      .update({ access_token_ttl_minutes: 5, refresh_token_ttl_days: 2 });
    const before = Date.now();
    const user = await signInUser(svc, creds);
    assert.equal(user.signIn.tokens.expiresIn, 300);
    const refreshExpiry = Date.parse(user.signIn.tokens.refreshTokenExpiresAt) - before;
    assert.ok(Math.abs(refreshExpiry - 2 * 86_400_000) < 60_000, `refresh token lives 2 days (${refreshExpiry} ms)`);
  });

  test('a sign-in that fails after the code was accepted (wallet creation 503) leaves the code unused: the same request succeeds on retry', async () => {
    const creds = await freshApp();
    const email = testEmail('user');
    await startUserEmailSignIn(svc, creds.publishableKey, email);
    const code = latestCode(svc, email);
    const kms = svc.deps.kms as { generateDataKey: typeof svc.deps.kms.generateDataKey };
    const generateDataKey = kms.generateDataKey;
    kms.generateDataKey = async () => {
      throw new AppError('WALLET_CREATION_FAILED', { message: 'Creating the wallet on Stellar failed; retry' });
    };
    let failed;
    try {
      failed = await verify(creds, { email, code });
    } finally {
      kms.generateDataKey = generateDataKey;
    }
    assert.equal(failed.status, 503);
    assert.equal(failed.body.code, 'WALLET_CREATION_FAILED');
    assert.equal((await svc.deps.db('sessions').where({ app_id: creds.app.id })).length, 0, 'no session was started');
    const retried = await verify(creds, { email, code });
    assert.equal(retried.status, 200, retried.text);
    assert.equal((await verify(creds, { email, code })).body.code, 'EMAIL_CODE_INVALID', 'and then it is used');
  });

  test('codes, refresh tokens and access tokens are nowhere in the database in clear', async () => {
    const creds = await freshApp();
    const user = await signInUser(svc, creds);
    const code = latestCode(svc, user.email);
    const tables = ['email_codes', 'sessions', 'refresh_tokens', 'users', 'user_identities', 'wallets'];
    const dump = JSON.stringify(await Promise.all(tables.map((t) => svc.deps.db(t).select())));
    for (const secret of [user.refreshToken, user.accessToken])
      assert.ok(!dump.includes(secret), 'token stored in clear');
    assert.ok(!dump.includes(`"${code}"`), 'code stored in clear');
  });
});
