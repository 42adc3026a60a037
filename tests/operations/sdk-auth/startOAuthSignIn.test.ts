// startOAuthSignIn (GET /v1/auth/oauth/{provider}/start): start a Google or GitHub sign-in.
// Shared set-up: oauth.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pkcePair } from '../../support/oauthProviders';
import { QUERY_REDIRECT, REDIRECT, appA, clients, dashboard, setUpApp, start, useService } from './oauth.setup';

describe('startOAuthSignIn', () => {
  useService();

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
});
