// startOperatorOAuthSignIn (GET /api/v1/auth/oauth/{provider}/start): start operator sign-in with Google or GitHub.
// Shared set-up: oauth.setup.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pkcePair } from '../../support/oauthProviders';
import { CALLBACK, github, githubClient, google, googleClient, start, svc, useService } from './oauth.setup';
import { freePort } from '../../../src/infra/freePort';
import { call } from '../../support/http';
import { createDpopKey } from '../../support/dpop';
import { sendWithProof } from '../../support/operators';
import { responseViolations } from '../../support/spec';
import { startTestService, type TestService } from '../../support/service';

describe('startOperatorOAuthSignIn', () => {
  useService();

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
});

describe('startOperatorOAuthSignIn when the service has no client for the provider, or cannot reach it', () => {
  let unconfigured: TestService;
  before(async () => {
    unconfigured = await startTestService({ DASHBOARD_OAUTH_REDIRECT_URIS: CALLBACK });
  });
  after(async () => {
    await unconfigured?.stop();
  });

  test('start and callback answer 422 OAUTH_PROVIDER_NOT_CONFIGURED', async () => {
    for (const provider of ['google', 'github'] as const) {
      const query = new URLSearchParams({ redirectUri: CALLBACK, codeChallenge: pkcePair().codeChallenge });
      const started = await call(
        unconfigured.url,
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
        unconfigured.url,
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
