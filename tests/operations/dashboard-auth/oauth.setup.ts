// What tests of the dashboard-auth operations in this folder share: the service they run against, its state and helpers
// (the tests are in <operationId>.test.ts). What they cover:
// Operator sign-in with Google and GitHub over HTTP, end to end: a real OpenID provider (oidc-provider) stands in for
// Google and a local HTTP stand-in for GitHub; the "browser" steps (login, consent, approval) are plain HTTP requests.
// Covers the start answer, full sign-ins (the same operator as an email-code sign-in with the same address), the
// state's binding (single use, expiry, provider, redirect URI, PKCE verifier), configured callbacks, unconfigured
// providers, refused exchanges and accounts without a verified email. Every answer is checked against the contract.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { call } from '../../support/http';
import { createDpopKey } from '../../support/dpop';
import {
  pkcePair,
  startGithubStandIn,
  startGoogleStandIn,
  testClient,
  type GithubStandIn,
  type GoogleStandIn,
} from '../../support/oauthProviders';
import { sendWithProof, testEmail } from '../../support/operators';
import { startTestService, type TestService } from '../../support/service';
import { responseViolations } from '../../support/spec';

export const CALLBACK = 'https://dashboard.example.com/auth/callback';
export const OTHER_CALLBACK = 'https://dashboard.example.com/auth/other-callback';

export type Provider = 'google' | 'github';

/** Set by useService()'s hooks: ES module bindings are live, so read them inside tests, not at load time. */
export let svc: TestService;
export let google: GoogleStandIn;
export let github: GithubStandIn;
export const googleClient = testClient('dashboard-google', [CALLBACK, OTHER_CALLBACK]);
export const githubClient = testClient('dashboard-github', [CALLBACK, OTHER_CALLBACK]);

export let accounts = 0;
/** A new account at the provider; its login is returned. */
export function account(
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

export async function start(provider: Provider, redirectUri = CALLBACK, codeChallenge = pkcePair().codeChallenge) {
  const query = new URLSearchParams({ redirectUri, codeChallenge });
  return call(svc.url, 'startOperatorOAuthSignIn', 'GET', `/api/v1/auth/oauth/${provider}/start?${query}`);
}

/** Start, then the browser at the provider signs in as `login`: the code and state it brings back, and the verifier. */
export async function authorized(provider: Provider, login: string, redirectUri = CALLBACK) {
  const pkce = pkcePair();
  const started = await start(provider, redirectUri, pkce.codeChallenge);
  assert.equal(started.status, 200, started.text);
  const back = await (provider === 'google' ? google : github).authorize(started.body.content.authorizationUrl, login);
  assert.equal(`${back.origin}${back.pathname}`, redirectUri);
  assert.equal(back.searchParams.get('state'), started.body.content.state);
  return {
    code: back.searchParams.get('code')!,
    state: started.body.content.state as string,
    redirectUri,
    codeVerifier: pkce.codeVerifier,
  };
}

export async function callback(provider: Provider, body: Record<string, string>) {
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

/** Starts the service (and what the tests need of it) before the calling suite's tests and stops it after. */
export function useService(): void {
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
}
