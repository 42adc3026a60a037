// Operator sign-in with Google and GitHub over HTTP, end to end: a real OpenID provider (oidc-provider) stands in for
// Google and a local HTTP stand-in for GitHub; the "browser" steps (login, consent, approval) are plain HTTP requests.
// Covers the start answer, full sign-ins (the same operator as an email-code sign-in with the same address), the
// state's binding (single use, expiry, provider, redirect URI, PKCE verifier), configured callbacks, unconfigured
// providers, refused exchanges and accounts without a verified email. Every answer is checked against the contract.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { freePort } from '../../src/infra/freePort';
import { call } from '../support/http';
import { createDpopKey } from '../support/dpop';
import {
  pkcePair,
  startGithubStandIn,
  startGoogleStandIn,
  testClient,
  type GithubStandIn,
  type GoogleStandIn,
} from '../support/oauthProviders';
import { sendWithProof, signInOperator, testEmail } from '../support/operators';
import { startTestService, type TestService } from '../support/service';
import { responseViolations } from '../support/spec';

const CALLBACK = 'https://dashboard.example.com/auth/callback';
const OTHER_CALLBACK = 'https://dashboard.example.com/auth/other-callback';

type Provider = 'google' | 'github';

describe('operator sign-in with Google and GitHub', () => {
  let svc: TestService;
  let google: GoogleStandIn;
  let github: GithubStandIn;
  const googleClient = testClient('dashboard-google', [CALLBACK, OTHER_CALLBACK]);
  const githubClient = testClient('dashboard-github', [CALLBACK, OTHER_CALLBACK]);

  before(async () => {
    [google, github] = await Promise.all([startGoogleStandIn([googleClient]), startGithubStandIn([githubClient])]);
    svc = await startTestService({
      GOOGLE_ISSUER_URL: google.issuer,
      GITHUB_OAUTH_URL: github.oauthUrl,
      GITHUB_API_URL: github.apiUrl,
      DASHBOARD_GOOGLE_CLIENT_ID: googleClient.clientId,
      DASHBOARD_GOOGLE_CLIENT_SECRET: googleClient.clientSecret,
      DASHBOARD_GITHUB_CLIENT_ID: githubClient.clientId,
      DASHBOARD_GITHUB_CLIENT_SECRET: githubClient.clientSecret,
      DASHBOARD_OAUTH_REDIRECT_URIS: `${CALLBACK},${OTHER_CALLBACK}`,
    });
  });
  after(async () => {
    await svc?.stop();
    await google?.stop();
    await github?.stop();
  });

  let accounts = 0;
  /** A new account at the provider; its login is returned. */
  function account(
    provider: Provider,
    opts: { email?: string; verified?: boolean; name?: string } = {},
  ): { login: string; email: string } {
    accounts += 1;
    const email = opts.email ?? testEmail(provider);
    const login = `${provider}-user-${accounts}`;
    if (provider === 'google')
      google.accounts.set(login, {
        email,
        emailVerified: opts.verified ?? true,
        ...(opts.name ? { name: opts.name } : {}),
      });
    else
      github.accounts.set(login, {
        id: 1000 + accounts,
        login,
        name: opts.name ?? null,
        emails: [{ email, primary: true, verified: opts.verified ?? true }],
      });
    return { login, email };
  }

  async function start(provider: Provider, redirectUri = CALLBACK, codeChallenge = pkcePair().codeChallenge) {
    const query = new URLSearchParams({ redirectUri, codeChallenge });
    return call(svc.url, 'startOperatorOAuthSignIn', 'GET', `/api/v1/auth/oauth/${provider}/start?${query}`);
  }

  /** Start, then the browser at the provider signs in as `login`: the code and state it brings back, and the verifier. */
  async function authorized(provider: Provider, login: string, redirectUri = CALLBACK) {
    const pkce = pkcePair();
    const started = await start(provider, redirectUri, pkce.codeChallenge);
    assert.equal(started.status, 200, started.text);
    const back = await (provider === 'google' ? google : github).authorize(
      started.body.content.authorizationUrl,
      login,
    );
    assert.equal(`${back.origin}${back.pathname}`, redirectUri);
    assert.equal(back.searchParams.get('state'), started.body.content.state);
    return {
      code: back.searchParams.get('code')!,
      state: started.body.content.state as string,
      redirectUri,
      codeVerifier: pkce.codeVerifier,
    };
  }

  async function callback(provider: Provider, body: Record<string, string>) {
    const res = await sendWithProof(
      svc.url,
      await createDpopKey(),
      {},
      'POST',
      `/api/v1/auth/oauth/${provider}/callback`,
      { body },
    );
    assert.deepEqual(responseViolations('completeOperatorOAuthSignIn', res), [], res.text);
    return res;
  }

  test('start answers the provider URL with the client id, redirect URI, S256 challenge and a 10-minute state', async () => {
    const { codeChallenge } = pkcePair();
    const states: string[] = [];
    for (const provider of ['google', 'github'] as const) {
      const before = Date.now();
      const res = await start(provider, CALLBACK, codeChallenge);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.code, 'OPERATOR_OAUTH_STARTED');
      const { authorizationUrl, state, expiresAt } = res.body.content;
      const url = new URL(authorizationUrl);
      assert.equal(
        `${url.origin}${url.pathname}`,
        provider === 'google' ? `${google.issuer}/auth` : `${github.oauthUrl}/login/oauth/authorize`,
      );
      const q = url.searchParams;
      assert.equal(q.get('client_id'), provider === 'google' ? googleClient.clientId : githubClient.clientId);
      assert.equal(q.get('redirect_uri'), CALLBACK);
      assert.equal(q.get('response_type'), 'code');
      assert.equal(q.get('code_challenge'), codeChallenge);
      assert.equal(q.get('code_challenge_method'), 'S256');
      assert.equal(q.get('state'), state);
      assert.match(q.get('scope') ?? '', provider === 'google' ? /^openid email/ : /user:email/);
      const ttl = Date.parse(expiresAt) - before;
      assert.ok(ttl > 590_000 && ttl <= 601_000, `expires in ${ttl} ms`);
      states.push(state);
    }
    const again = await start('google', CALLBACK, codeChallenge);
    assert.ok(!states.includes(again.body.content.state), 'a new state per start');
  });

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

  test('only the configured Dashboard callbacks are accepted as redirect URIs', async () => {
    for (const redirectUri of ['https://evil.example.com/auth/callback', `${CALLBACK}/`, `${CALLBACK}?next=/apps`]) {
      const res = await start('google', redirectUri);
      assert.equal(res.status, 400, redirectUri);
      assert.equal(res.body.code, 'REDIRECT_URI_NOT_ALLOWED');
    }
    assert.equal(
      (await svc.deps.db('oauth_states').where('redirect_uri', 'like', 'https://evil%').count({ n: '*' }))[0]!.n,
      '0',
    );
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

describe('operator sign-in with a provider the service has no client for, or cannot reach', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ DASHBOARD_OAUTH_REDIRECT_URIS: CALLBACK });
  });
  after(async () => {
    await svc?.stop();
  });

  test('start and callback answer 422 OAUTH_PROVIDER_NOT_CONFIGURED', async () => {
    for (const provider of ['google', 'github'] as const) {
      const query = new URLSearchParams({ redirectUri: CALLBACK, codeChallenge: pkcePair().codeChallenge });
      const started = await call(
        svc.url,
        'startOperatorOAuthSignIn',
        'GET',
        `/api/v1/auth/oauth/${provider}/start?${query}`,
      );
      assert.equal(started.status, 422);
      assert.equal(started.body.code, 'OAUTH_PROVIDER_NOT_CONFIGURED');
      const body = {
        code: 'code',
        state: 'st_0123456789abcdefghij',
        redirectUri: CALLBACK,
        codeVerifier: pkcePair().codeVerifier,
      };
      const done = await sendWithProof(
        svc.url,
        await createDpopKey(),
        {},
        'POST',
        `/api/v1/auth/oauth/${provider}/callback`,
        { body },
      );
      assert.deepEqual(responseViolations('completeOperatorOAuthSignIn', done), []);
      assert.equal(done.status, 422);
      assert.equal(done.body.code, 'OAUTH_PROVIDER_NOT_CONFIGURED');
    }
  });

  test('a Google issuer that cannot be reached answers 503 SERVICE_UNAVAILABLE at start, and nothing is started', async () => {
    const unreachable = await startTestService({
      GOOGLE_ISSUER_URL: `http://127.0.0.1:${await freePort()}`,
      DASHBOARD_GOOGLE_CLIENT_ID: 'dashboard-google',
      DASHBOARD_GOOGLE_CLIENT_SECRET: 'dashboard-google-secret',
      DASHBOARD_OAUTH_REDIRECT_URIS: CALLBACK,
    });
    try {
      const query = new URLSearchParams({ redirectUri: CALLBACK, codeChallenge: pkcePair().codeChallenge });
      const res = await call(
        unreachable.url,
        'startOperatorOAuthSignIn',
        'GET',
        `/api/v1/auth/oauth/google/start?${query}`,
      );
      assert.equal(res.status, 503, res.text);
      assert.equal(res.body.code, 'SERVICE_UNAVAILABLE');
      assert.ok(Number(res.headers.get('retry-after')) > 0);
      assert.equal((await unreachable.deps.db('oauth_states').count({ n: '*' }))[0]!.n, '0');
    } finally {
      await unreachable.stop();
    }
  });
});
