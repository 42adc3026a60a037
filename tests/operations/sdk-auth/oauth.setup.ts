// What tests of the sdk-auth operations in this folder share: the service they run against, its state and helpers
// (the tests are in <operationId>.test.ts). What they cover:
// End-user sign-in with Google and GitHub on the SDK API, end to end: the app is set up through the Dashboard API
// (key, redirect URIs, its own Google and GitHub clients), a real OpenID provider (oidc-provider) stands in for Google
// and a local HTTP stand-in for GitHub. Covers the start answer and its refusals (provider not enabled, no or an
// unlisted redirect URI), full sign-ins creating the user, identity, wallet and a working session, one user per
// verified email across providers and email codes, the state's binding to its app, redirect URIs removed
// meanwhile, accounts without a verified email, and the apps' client secrets never in clear (database, answers, log).
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { call } from '../../support/http';
import { createDpopKey } from '../../support/dpop';
import { capturingLogger } from '../../support/log';
import {
  pkcePair,
  startGithubStandIn,
  startGoogleStandIn,
  testClient,
  type GithubStandIn,
  type GoogleStandIn,
  type OAuthTestClient,
} from '../../support/oauthProviders';
import { sendWithProof, signInOperator, testEmail, type OperatorClient } from '../../support/operators';
import { startTestService, type TestService } from '../../support/service';
import { responseViolations } from '../../support/spec';

export const REDIRECT = 'https://app.example.com/auth/callback';
export const QUERY_REDIRECT = 'https://app.example.com/oauth/done?from=sign-in';

export type Provider = 'google' | 'github';

interface TestApp {
  appId: string;
  publishableKey: string;
}

/** Set by useService()'s hooks: ES module bindings are live, so read them inside tests, not at load time. */
export let svc: TestService;
export let google: GoogleStandIn;
export let github: GithubStandIn;
export let owner: OperatorClient;
export const log = capturingLogger('debug');
/** Every answer of the service in this suite, searched for secrets at the end. */
export const answers: string[] = [];
// Each app has its own clients at the providers, as each app registers its own Google project and GitHub app.
export const clients = {
  google: [
    testClient('app-a-google', [REDIRECT, QUERY_REDIRECT]),
    testClient('app-b-google', [REDIRECT, QUERY_REDIRECT]),
  ],
  github: [
    testClient('app-a-github', [REDIRECT, QUERY_REDIRECT]),
    testClient('app-b-github', [REDIRECT, QUERY_REDIRECT]),
  ],
};
export let appA: TestApp;
export let appB: TestApp;

export const dashboard = async (
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
export async function setUpApp(opts: {
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

export let accounts = 0;
export function account(
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

export async function start(
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

export async function authorized(app: TestApp, provider: Provider, login: string, redirectUri = REDIRECT) {
  const pkce = pkcePair();
  const started = await start(app, provider, redirectUri, pkce.codeChallenge);
  assert.equal(started.status, 200, started.text);
  const back = await (provider === 'google' ? google : github).authorize(started.body.content.authorizationUrl, login);
  assert.equal(back.searchParams.get('state'), started.body.content.state);
  return {
    code: back.searchParams.get('code')!,
    state: started.body.content.state as string,
    redirectUri,
    codeVerifier: pkce.codeVerifier,
  };
}

export async function callback(
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

/** Starts the service (and what the tests need of it) before the calling suite's tests and stops it after. */
export function useService(): void {
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
}
