// verifyOperatorEmailSignIn (POST /api/v1/auth/email/verify): sign in with an emailed code.
// Shared set-up: emailSignIn.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call } from '../../support/http';
import { createDpopKey } from '../../support/dpop';
import { latestCode, sendWithProof, signInOperator, testEmail } from '../../support/operators';
import { svc, useService } from './emailSignIn.setup';

describe('verifyOperatorEmailSignIn', () => {
  useService();

  test('sign-in creates the operator and a DPoP-bound session; /me answers with it', async () => {
    const op = await signInOperator(svc);
    assert.match(op.operatorId, /^op_/);
    const me = await op.call('getCurrentOperator', 'GET', '/api/v1/me');
    assert.equal(me.status, 200);
    assert.equal(me.body.content.operator.operatorId, op.operatorId);
    assert.equal(me.body.content.operator.email, op.email);
    assert.deepEqual(me.body.content.apps, []);
    assert.ok(me.headers.get('dpop-nonce'), 'answers of DPoP operations carry a nonce');
  });

  test('a second sign-in with the same address reaches the same operator', async () => {
    const email = testEmail();
    const a = await signInOperator(svc, email);
    await svc.deps
      .db('email_codes')
      .where({ email })
      .update({ sent_at: new Date(Date.now() - 61_000) });
    const b = await signInOperator(svc, email.toUpperCase());
    assert.equal(a.operatorId, b.operatorId);
    assert.notEqual(a.sessionId, b.sessionId);
  });

  test('brute force stops at 5 wrong attempts: the right code is refused afterwards', async () => {
    const email = testEmail();
    await call(svc.url, 'startOperatorEmailSignIn', 'POST', '/api/v1/auth/email/start', { body: { email } });
    const code = latestCode(svc, email);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    const key = await createDpopKey();
    const state = {};
    for (let i = 0; i < 5; i++) {
      const res = await sendWithProof(svc.url, key, state, 'POST', '/api/v1/auth/email/verify', {
        body: { email, code: wrong },
      });
      assert.equal(res.status, 401);
      assert.equal(res.body.code, 'EMAIL_CODE_INVALID');
    }
    const right = await sendWithProof(svc.url, key, state, 'POST', '/api/v1/auth/email/verify', {
      body: { email, code },
    });
    assert.equal(right.status, 401);
    assert.equal(right.body.code, 'EMAIL_CODE_INVALID');
  });

  test('a code works once', async () => {
    const email = testEmail();
    await signInOperator(svc, email);
    const key = await createDpopKey();
    const res = await sendWithProof(svc.url, key, {}, 'POST', '/api/v1/auth/email/verify', {
      body: { email, code: latestCode(svc, email) },
    });
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'EMAIL_CODE_INVALID');
  });

  test('verify without a DPoP proof: 401 SDK_AUTH_DPOP_REQUIRED', async () => {
    const res = await call(svc.url, 'verifyOperatorEmailSignIn', 'POST', '/api/v1/auth/email/verify', {
      body: { email: testEmail(), code: '123456' },
    });
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'SDK_AUTH_DPOP_REQUIRED');
  });

  test('codes, refresh tokens and access tokens are nowhere in the database in clear', async () => {
    const op = await signInOperator(svc);
    const code = latestCode(svc, op.email);
    const dump = JSON.stringify(
      await Promise.all(['email_codes', 'sessions', 'refresh_tokens', 'operators'].map((t) => svc.deps.db(t).select())),
    );
    for (const secret of [op.refreshToken, op.accessToken]) assert.ok(!dump.includes(secret), 'token stored in clear');
    assert.ok(!dump.includes(`"${code}"`), 'code stored in clear');
  });
});
