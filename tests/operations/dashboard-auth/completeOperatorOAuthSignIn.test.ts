// completeOperatorOAuthSignIn (POST /api/v1/auth/oauth/{provider}/callback): finish operator sign-in with Google or GitHub.
// Shared set-up: oauth.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call } from '../../support/http';
import { pkcePair } from '../../support/oauthProviders';
import { signInOperator, testEmail } from '../../support/operators';
import { OTHER_CALLBACK, account, authorized, callback, github, svc, useService, type Provider } from './oauth.setup';

describe('completeOperatorOAuthSignIn', () => {
  useService();

  test('Google: a full sign-in creates the operator with the profile name and a working session', async () => {
    const { login, email } = account('google', { name: 'Ada Lovelace' });
    const res = await callback('google', await authorized('google', login));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'OPERATOR_OAUTH_SIGNED_IN');
    const { tokens, operator } = res.body.content;
    assert.equal(operator.email, email);
    assert.equal(operator.displayName, 'Ada Lovelace');
    assert.equal(tokens.tokenType, 'DPoP');
    const session = await svc.deps.db('sessions').where({ id: tokens.sessionId }).first();
    assert.equal(session.subject_id, operator.operatorId);
    assert.equal(session.auth_method, 'google');
  });

  test('GitHub: a full sign-in uses the primary verified address among several', async () => {
    const { login, email } = account('github', { name: 'Grace Hopper' });
    github.accounts
      .get(login)!
      .emails.unshift(
        { email: testEmail('secondary'), primary: false, verified: true },
        { email: testEmail('unverified'), primary: false, verified: false },
      );
    const res = await callback('github', await authorized('github', login));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.content.operator.email, email);
    assert.equal(res.body.content.operator.displayName, 'Grace Hopper');
  });

  test('Google, GitHub and an email code with one verified address reach the same operator', async () => {
    const email = testEmail('same');
    const viaGoogle = await callback('google', await authorized('google', account('google', { email }).login));
    const viaGithub = await callback(
      'github',
      await authorized('github', account('github', { email: email.toUpperCase() }).login),
    );
    const viaEmail = await signInOperator(svc, email);
    assert.equal(viaGoogle.status, 200, viaGoogle.text);
    assert.equal(viaGithub.status, 200, viaGithub.text);
    assert.equal(viaGithub.body.content.operator.operatorId, viaGoogle.body.content.operator.operatorId);
    assert.equal(viaEmail.operatorId, viaGoogle.body.content.operator.operatorId);
    const me = await viaEmail.call('getCurrentOperator', 'GET', '/api/v1/me');
    assert.equal(me.body.content.operator.email, email);
  });

  test('an operator who signed in by email code first is found by Google with the same address', async () => {
    const email = testEmail('email-first');
    const viaEmail = await signInOperator(svc, email);
    const viaGoogle = await callback('google', await authorized('google', account('google', { email }).login));
    assert.equal(viaGoogle.body.content.operator.operatorId, viaEmail.operatorId);
  });

  test('a state works once: replaying a completed callback is OAUTH_STATE_INVALID', async () => {
    const flow = await authorized('google', account('google').login);
    assert.equal((await callback('google', flow)).status, 200);
    const replay = await callback('google', flow);
    assert.equal(replay.status, 400);
    assert.equal(replay.body.code, 'OAUTH_STATE_INVALID');
  });

  test('an expired state is OAUTH_STATE_INVALID', async () => {
    const flow = await authorized('google', account('google').login);
    await svc.deps.db('oauth_states').update({ expires_at: new Date(Date.now() - 1000) });
    const res = await callback('google', flow);
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'OAUTH_STATE_INVALID');
  });

  test('a state is bound to its provider, redirect URI and PKCE verifier, and a mismatch uses it up', async () => {
    const cases: [string, (f: Awaited<ReturnType<typeof authorized>>) => [Provider, Record<string, string>]][] = [
      ['another provider', (f) => ['github', f]],
      ['another configured callback', (f) => ['google', { ...f, redirectUri: OTHER_CALLBACK }]],
      ['another verifier', (f) => ['google', { ...f, codeVerifier: pkcePair().codeVerifier }]],
      ['an unknown state', (f) => ['google', { ...f, state: 'st_unknown0123456789abcdef' }]],
    ];
    for (const [label, tamper] of cases) {
      const flow = await authorized('google', account('google').login);
      const [provider, body] = tamper(flow);
      const res = await callback(provider, body);
      assert.equal(res.status, 400, label);
      assert.equal(res.body.code, 'OAUTH_STATE_INVALID', label);
      if (body.state === flow.state) {
        const honest = await callback('google', flow);
        assert.equal(honest.body.code, 'OAUTH_STATE_INVALID', `${label}: the state is used up`);
      }
    }
  });

  test('a refused code exchange answers 502 OAUTH_EXCHANGE_FAILED', async () => {
    for (const provider of ['google', 'github'] as const) {
      const flow = await authorized(provider, account(provider).login);
      const res = await callback(provider, { ...flow, code: `${flow.code}x` });
      assert.equal(res.status, 502, res.text);
      assert.equal(res.body.code, 'OAUTH_EXCHANGE_FAILED');
    }
    assert.deepEqual(github.refusals, ['bad_verification_code'], 'GitHub refused the tampered code and nothing else');
  });

  test('an account without a verified email answers 502 OAUTH_EXCHANGE_FAILED and creates no operator', async () => {
    for (const provider of ['google', 'github'] as const) {
      const { login, email } = account(provider, { verified: false });
      const res = await callback(provider, await authorized(provider, login));
      assert.equal(res.status, 502, res.text);
      assert.equal(res.body.code, 'OAUTH_EXCHANGE_FAILED');
      assert.match(res.body.message, /no verified email/);
      assert.equal(await svc.deps.db('operators').where({ email }).first(), undefined);
    }
  });

  test('the callback needs a DPoP proof', async () => {
    const flow = await authorized('google', account('google').login);
    const res = await call(svc.url, 'completeOperatorOAuthSignIn', 'POST', '/api/v1/auth/oauth/google/callback', {
      body: flow,
    });
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'SDK_AUTH_DPOP_REQUIRED');
  });
});
