// End-user sign-in with Google and GitHub on the SDK API, end to end: the app is set up through the Dashboard API
// (key, redirect URIs, its own Google and GitHub clients), a real OpenID provider (oidc-provider) stands in for Google
// and a local HTTP stand-in for GitHub. Covers the start answer and its refusals (provider not enabled, no or an
// unlisted redirect URI), full sign-ins creating the user, identity, wallet and a working session, one user per
// verified email across providers and email codes, the state's binding to its app, redirect URIs removed
// meanwhile, accounts without a verified email, and the apps' client secrets never in clear (database, answers, log).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call } from '../support/http';
import { createDpopKey } from '../support/dpop';
import { capturingLogger } from '../support/log';
import {
  pkcePair,
  startGithubStandIn,
  startGoogleStandIn,
  testClient,
  type GithubStandIn,
  type GoogleStandIn,
  type OAuthTestClient,
} from '../support/oauthProviders';
import { sendWithProof, signInOperator, testEmail, type OperatorClient } from '../support/operators';
import { startTestService, type TestService } from '../support/service';
import { responseViolations } from '../support/spec';
import { signInUser } from '../support/users';

const REDIRECT = 'https://app.example.com/auth/callback';
const QUERY_REDIRECT = 'https://app.example.com/oauth/done?from=sign-in';

type Provider = 'google' | 'github';

interface TestApp {
  appId: string;
  publishableKey: string;
}

describe('SDK sign-in with Google and GitHub', () => {
  let svc: TestService;
  let google: GoogleStandIn;
  let github: GithubStandIn;
  let owner: OperatorClient;
  const log = capturingLogger('debug');
  /** Every answer of the service in this suite, searched for secrets at the end. */
  const answers: string[] = [];
  // Each app has its own clients at the providers, as each app registers its own Google project and GitHub app.
  const clients = {
    google: [
      testClient('app-a-google', [REDIRECT, QUERY_REDIRECT]),
      testClient('app-b-google', [REDIRECT, QUERY_REDIRECT]),
    ],
    github: [
      testClient('app-a-github', [REDIRECT, QUERY_REDIRECT]),
      testClient('app-b-github', [REDIRECT, QUERY_REDIRECT]),
    ],
  };
  let appA: TestApp;
  let appB: TestApp;

  const dashboard = async (
    operationId: Parameters<OperatorClient['call']>[0],
    method: string,
    path: string,
    body?: unknown,
  ) => {
    const res = await owner.call(operationId, method, path, body === undefined ? {} : { body });
    answers.push(res.text);
    assert.ok(res.status < 300, `${operationId} answered ${res.status}: ${res.text}`);
    return res;
  };

  /** An app set up through the Dashboard API: a publishable key, redirect URIs and the given providers' clients. */
  async function setUpApp(opts: {
    redirectUris?: string[];
    google?: OAuthTestClient;
    github?: OAuthTestClient;
  }): Promise<TestApp> {
    const created = await dashboard('createApp', 'POST', '/api/v1/apps', { name: 'OAuth app', network: 'testnet' });
    const appId: string = created.body.content.appId;
    const key = await dashboard('createApiKey', 'POST', `/api/v1/apps/${appId}/api-keys`, { type: 'publishable' });
    await dashboard('updateAppDomains', 'PUT', `/api/v1/apps/${appId}/domains`, {
      origins: [],
      redirectUris: opts.redirectUris ?? [REDIRECT, QUERY_REDIRECT],
    });
    const provider = (c?: OAuthTestClient) =>
      c ? { enabled: true, clientId: c.clientId, clientSecret: c.clientSecret } : { enabled: false };
    await dashboard('updateAuthProviders', 'PUT', `/api/v1/apps/${appId}/auth-providers`, {
      email: { enabled: true },
      google: provider(opts.google),
      github: provider(opts.github),
    });
    return { appId, publishableKey: key.body.content.key };
  }

  before(async () => {
    [google, github] = await Promise.all([startGoogleStandIn(clients.google), startGithubStandIn(clients.github)]);
    svc = await startTestService(
      { GOOGLE_ISSUER_URL: google.issuer, GITHUB_OAUTH_URL: github.oauthUrl, GITHUB_API_URL: github.apiUrl },
      { log: log.log },
    );
    owner = await signInOperator(svc);
    appA = await setUpApp({ google: clients.google[0], github: clients.github[0] });
    appB = await setUpApp({ google: clients.google[1], github: clients.github[1] });
  });
  after(async () => {
    await svc?.stop();
    await google?.stop();
    await github?.stop();
  });

  let accounts = 0;
  function account(
    provider: Provider,
    opts: { email?: string; verified?: boolean } = {},
  ): { login: string; email: string } {
    accounts += 1;
    const email = opts.email ?? testEmail(`${provider}-user`);
    const login = `${provider}-user-${accounts}`;
    if (provider === 'google')
      google.accounts.set(login, { email, emailVerified: opts.verified ?? true, name: 'Test User' });
    else
      github.accounts.set(login, {
        id: 5000 + accounts,
        login,
        name: null,
        emails: [{ email, primary: true, verified: opts.verified ?? true }],
      });
    return { login, email };
  }

  async function start(
    app: TestApp,
    provider: Provider,
    redirectUri = REDIRECT,
    codeChallenge = pkcePair().codeChallenge,
  ) {
    const query = new URLSearchParams({ redirectUri, codeChallenge });
    const res = await call(svc.url, 'startOAuthSignIn', 'GET', `/v1/auth/oauth/${provider}/start?${query}`, {
      headers: { 'x-service-api-key': app.publishableKey },
    });
    answers.push(res.text);
    return res;
  }

  async function authorized(app: TestApp, provider: Provider, login: string, redirectUri = REDIRECT) {
    const pkce = pkcePair();
    const started = await start(app, provider, redirectUri, pkce.codeChallenge);
    assert.equal(started.status, 200, started.text);
    const back = await (provider === 'google' ? google : github).authorize(
      started.body.content.authorizationUrl,
      login,
    );
    assert.equal(back.searchParams.get('state'), started.body.content.state);
    return {
      code: back.searchParams.get('code')!,
      state: started.body.content.state as string,
      redirectUri,
      codeVerifier: pkce.codeVerifier,
    };
  }

  async function callback(
    app: TestApp,
    provider: Provider,
    body: Record<string, string>,
    key?: Awaited<ReturnType<typeof createDpopKey>>,
  ) {
    const res = await sendWithProof(
      svc.url,
      key ?? (await createDpopKey()),
      {},
      'POST',
      `/v1/auth/oauth/${provider}/callback`,
      {
        headers: { 'x-service-api-key': app.publishableKey },
        body,
      },
    );
    answers.push(res.text);
    assert.deepEqual(responseViolations('completeOAuthSignIn', res), [], res.text);
    return res;
  }

  test("start answers the provider URL with the app's client id, the redirect URI, the S256 challenge and a state", async () => {
    const { codeChallenge } = pkcePair();
    for (const provider of ['google', 'github'] as const) {
      const res = await start(appA, provider, QUERY_REDIRECT, codeChallenge);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.code, 'SDK_OAUTH_SIGN_IN_STARTED');
      const q = new URL(res.body.content.authorizationUrl).searchParams;
      assert.equal(q.get('client_id'), (provider === 'google' ? clients.google[0] : clients.github[0])!.clientId);
      assert.equal(q.get('redirect_uri'), QUERY_REDIRECT);
      assert.equal(q.get('code_challenge'), codeChallenge);
      assert.equal(q.get('code_challenge_method'), 'S256');
      assert.equal(q.get('state'), res.body.content.state);
      assert.ok(Date.parse(res.body.content.expiresAt) > Date.now() + 590_000);
    }
  });

  test('start refuses a provider the app has not enabled (422) and redirect URIs the app does not list (400)', async () => {
    const googleOnly = await setUpApp({ google: clients.google[0] });
    const notEnabled = await start(googleOnly, 'github');
    assert.equal(notEnabled.status, 422);
    assert.equal(notEnabled.body.code, 'OAUTH_PROVIDER_NOT_CONFIGURED');

    const noRedirects = await setUpApp({ redirectUris: [], google: clients.google[0] });
    const none = await start(noRedirects, 'google');
    assert.equal(none.status, 400);
    assert.equal(none.body.code, 'APPLICATION_HAS_NO_REDIRECT_URIS');

    for (const redirectUri of [
      'https://evil.example.com/auth/callback',
      `${REDIRECT}/`,
      'https://app.example.com/oauth/done',
    ]) {
      const res = await start(appA, 'google', redirectUri);
      assert.equal(res.status, 400, redirectUri);
      assert.equal(res.body.code, 'REDIRECT_URI_NOT_ALLOWED');
    }

    await dashboard('updateAuthProviders', 'PUT', `/api/v1/apps/${googleOnly.appId}/auth-providers`, {
      email: { enabled: true },
      google: { enabled: false },
      github: { enabled: false },
    });
    assert.equal(
      (await start(googleOnly, 'google')).body.code,
      'OAUTH_PROVIDER_NOT_CONFIGURED',
      'disabling stops new sign-ins',
    );
  });

  test('Google: a full sign-in creates the user, the identity and a wallet, and the session works', async () => {
    const { login, email } = account('google');
    const key = await createDpopKey();
    const res = await callback(appA, 'google', await authorized(appA, 'google', login), key);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'SDK_OAUTH_SIGN_IN_COMPLETED');
    const { tokens, user, wallet } = res.body.content;
    assert.equal(user.email, email);
    assert.equal(wallet.network, 'testnet');
    assert.deepEqual(
      (await svc.deps.db('user_identities').where({ user_id: user.userId }).select('provider', 'subject', 'email')).map(
        (r) => [r.provider, r.subject, r.email],
      ),
      [['google', login, email]],
    );
    const session = await svc.deps.db('sessions').where({ id: tokens.sessionId }).first();
    assert.deepEqual(
      [session.audience, session.subject_id, session.app_id, session.jkt, session.auth_method],
      ['user', user.userId, appA.appId, key.jkt, 'google'],
    );
    const listed = await sendWithProof(svc.url, key, {}, 'GET', '/v1/auth/sessions', {
      headers: { 'x-service-api-key': appA.publishableKey },
      accessToken: tokens.accessToken,
    });
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(responseViolations('listSessions', listed), []);
  });

  test('GitHub and Google (a redirect URI with a query) and an email code with one verified address reach the same user', async () => {
    const email = testEmail('same-user');
    const viaGithub = await callback(
      appA,
      'github',
      await authorized(appA, 'github', account('github', { email }).login, QUERY_REDIRECT),
    );
    assert.equal(viaGithub.status, 200, viaGithub.text);
    const viaGoogle = await callback(
      appA,
      'google',
      await authorized(appA, 'google', account('google', { email: email.toUpperCase() }).login, QUERY_REDIRECT),
    );
    assert.equal(viaGoogle.status, 200, viaGoogle.text);
    const viaEmail = await signInUser(svc, appA, email);
    const userId = viaGithub.body.content.user.userId;
    assert.equal(viaGoogle.body.content.user.userId, userId);
    assert.equal(viaEmail.userId, userId);
    assert.deepEqual(viaGoogle.body.content.wallet, viaGithub.body.content.wallet, 'one wallet');
    const providers = await svc.deps
      .db('user_identities')
      .where({ user_id: userId })
      .orderBy('provider')
      .pluck('provider');
    assert.deepEqual(providers, ['email', 'github', 'google']);
    // another app: another user
    const inB = await callback(appB, 'google', await authorized(appB, 'google', account('google', { email }).login));
    assert.notEqual(inB.body.content.user.userId, userId);
  });

  test("a state is bound to its app and works once: another app's key or a replay is OAUTH_STATE_INVALID", async () => {
    const flow = await authorized(appA, 'google', account('google').login);
    const elsewhere = await callback(appB, 'google', flow);
    assert.equal(elsewhere.status, 400);
    assert.equal(elsewhere.body.code, 'OAUTH_STATE_INVALID');
    assert.equal((await callback(appA, 'google', flow)).body.code, 'OAUTH_STATE_INVALID', 'the state is used up');

    const once = await authorized(appA, 'github', account('github').login);
    assert.equal((await callback(appA, 'github', once)).status, 200);
    assert.equal((await callback(appA, 'github', once)).body.code, 'OAUTH_STATE_INVALID');
    const mismatched = await authorized(appA, 'google', account('google').login);
    assert.equal(
      (await callback(appA, 'google', { ...mismatched, codeVerifier: pkcePair().codeVerifier })).body.code,
      'OAUTH_STATE_INVALID',
    );
  });

  test('a redirect URI removed from the app meanwhile answers REDIRECT_URI_NOT_ALLOWED', async () => {
    const app = await setUpApp({ google: clients.google[0] });
    const flow = await authorized(app, 'google', account('google').login);
    await dashboard('updateAppDomains', 'PUT', `/api/v1/apps/${app.appId}/domains`, {
      origins: [],
      redirectUris: [QUERY_REDIRECT],
    });
    const res = await callback(app, 'google', flow);
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'REDIRECT_URI_NOT_ALLOWED');
  });

  test('an account without a verified email answers 502 OAUTH_EXCHANGE_FAILED and creates no user', async () => {
    for (const provider of ['google', 'github'] as const) {
      const { login, email } = account(provider, { verified: false });
      const res = await callback(appA, provider, await authorized(appA, provider, login));
      assert.equal(res.status, 502, res.text);
      assert.equal(res.body.code, 'OAUTH_EXCHANGE_FAILED');
      assert.equal(await svc.deps.db('users').where({ email }).first(), undefined);
    }
  });

  test("the apps' client secrets are never in clear: not in any column of any table, any answer or the log", async () => {
    const secrets = [...clients.google, ...clients.github].map((c) => c.clientSecret);
    const columns = (
      await svc.deps.db.raw(
        `select table_name, column_name, data_type from information_schema.columns
        where table_schema = 'public' and data_type in ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY', 'bytea')`,
      )
    ).rows as { table_name: string; column_name: string; data_type: string }[];
    assert.ok(
      columns.some((c) => c.table_name === 'app_auth_providers' && c.column_name === 'client_secret_sealed'),
      'the search sees the sealed secrets',
    );
    for (const { table_name, column_name, data_type } of columns) {
      const match = data_type === 'bytea' ? `position(convert_to(?, 'UTF8') in ??) > 0` : 'position(? in ??::text) > 0';
      for (const secret of secrets) {
        const hits = await svc.deps.db(table_name).whereRaw(match, [secret, column_name]).count({ n: '*' });
        assert.equal(Number(hits[0]!.n), 0, `a client secret in clear in ${table_name}.${column_name}`);
      }
    }
    assert.ok(
      answers.length > 20 && answers.some((a) => a.includes('clientSecretSet')),
      `searched ${answers.length} answers`,
    );
    const logText = log.lines.join('');
    assert.ok(logText.includes('/v1/auth/oauth/google/callback'), 'the log was captured');
    for (const secret of secrets) {
      assert.ok(!answers.some((a) => a.includes(secret)), 'a client secret in an answer');
      assert.ok(!logText.includes(secret), 'a client secret in the log');
    }
  });
});
