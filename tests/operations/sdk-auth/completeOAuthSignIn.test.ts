// completeOAuthSignIn (POST /v1/auth/oauth/{provider}/callback): finish a Google or GitHub sign-in.
// Shared set-up: oauth.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDpopKey } from '../../support/dpop';
import { pkcePair } from '../../support/oauthProviders';
import { sendWithProof, testEmail } from '../../support/operators';
import { responseViolations } from '../../support/spec';
import { signInUser } from '../../support/users';
import {
  QUERY_REDIRECT,
  account,
  answers,
  appA,
  appB,
  authorized,
  callback,
  clients,
  dashboard,
  log,
  setUpApp,
  svc,
  useService,
} from './oauth.setup';

describe('completeOAuthSignIn', () => {
  useService();

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
