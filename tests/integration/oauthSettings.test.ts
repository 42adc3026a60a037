// An app's end-user sign-in providers over HTTP with real operator sessions, every answer checked against the
// contract: the defaults, client ids and write-only secrets (sealed at rest, answered only as clientSecretSet),
// keep-or-delete semantics, the 422 for an enabled provider without credentials (nothing written), who may read and
// change them, and validation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openClientSecret } from '../../src/domain/oauth/clientSecrets';
import { signInOperator, type OperatorClient } from '../support/operators';
import { startTestService, type TestService } from '../support/service';

const GOOGLE_ID = '1234567890-abc123def456.apps.googleusercontent.com';
const GOOGLE_SECRET = 'GOCSPX-settings-test-secret-4mQ9xV4tR7wY';
const GITHUB_ID = 'Iv1.0123456789abcdef';
const GITHUB_SECRET = 'github-settings-test-secret-0123456789abcdef';

describe('Dashboard: auth providers', () => {
  let svc: TestService;
  let owner: OperatorClient;
  let developer: OperatorClient;
  let outsider: OperatorClient;

  async function teamApp(): Promise<string> {
    const created = await owner.call('createApp', 'POST', '/api/v1/apps', {
      body: { name: 'Providers app', network: 'testnet' },
    });
    assert.equal(created.status, 201, created.text);
    const appId: string = created.body.content.appId;
    const added = await owner.call('addMember', 'POST', `/api/v1/apps/${appId}/members`, {
      body: { email: developer.email, role: 'developer' },
    });
    assert.equal(added.status, 201, added.text);
    return appId;
  }

  const put = (client: OperatorClient, appId: string, body: unknown) =>
    client.call('updateAuthProviders', 'PUT', `/api/v1/apps/${appId}/auth-providers`, { body });
  const get = (client: OperatorClient, appId: string) =>
    client.call('getAuthProviders', 'GET', `/api/v1/apps/${appId}/auth-providers`);
  const bothEnabled = {
    email: { enabled: true },
    google: { enabled: true, clientId: GOOGLE_ID, clientSecret: GOOGLE_SECRET },
    github: { enabled: true, clientId: GITHUB_ID, clientSecret: GITHUB_SECRET },
  };
  const bothShown = {
    email: { enabled: true },
    google: { enabled: true, clientId: GOOGLE_ID, clientSecretSet: true },
    github: { enabled: true, clientId: GITHUB_ID, clientSecretSet: true },
  };

  before(async () => {
    svc = await startTestService();
    [owner, developer, outsider] = await Promise.all([signInOperator(svc), signInOperator(svc), signInOperator(svc)]);
  });
  after(async () => {
    await svc?.stop();
  });

  test('a new app offers email codes only', async () => {
    const res = await get(owner, await teamApp());
    assert.equal(res.status, 200);
    assert.equal(res.body.code, 'AUTH_PROVIDERS_FETCHED');
    assert.deepEqual(res.body.content, {
      email: { enabled: true },
      google: { enabled: false, clientSecretSet: false },
      github: { enabled: false, clientSecretSet: false },
    });
  });

  test('stores client ids and sealed secrets; answers say only clientSecretSet; any member may read and change', async () => {
    const appId = await teamApp();
    const res = await put(developer, appId, bothEnabled);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'AUTH_PROVIDERS_UPDATED');
    assert.deepEqual(res.body.content, bothShown);
    assert.deepEqual((await get(owner, appId)).body.content, bothShown);
    for (const answer of [res.text, (await get(developer, appId)).text]) {
      assert.ok(!answer.includes(GOOGLE_SECRET) && !answer.includes(GITHUB_SECRET), 'no secret in an answer');
    }
    const rows = await svc.deps
      .db('app_auth_providers')
      .where({ app_id: appId })
      .whereNot({ provider: 'email' })
      .orderBy('provider');
    for (const [row, secret] of [
      [rows[0], GITHUB_SECRET],
      [rows[1], GOOGLE_SECRET],
    ] as const) {
      assert.ok(Buffer.isBuffer(row.client_secret_sealed));
      assert.equal(row.client_secret_sealed.includes(Buffer.from(secret)), false, 'sealed, not in clear');
      assert.equal(
        openClientSecret(svc.deps.secrets, { appId, provider: row.provider }, row.client_secret_sealed),
        secret,
      );
      assert.throws(
        () =>
          openClientSecret(svc.deps.secrets, { appId: 'app_other', provider: row.provider }, row.client_secret_sealed),
        'bound to its app',
      );
    }
  });

  test('an omitted client id or secret keeps the stored one, null deletes it', async () => {
    const appId = await teamApp();
    await put(owner, appId, bothEnabled);
    const kept = await put(owner, appId, {
      email: { enabled: false },
      google: { enabled: true },
      github: { enabled: false },
    });
    assert.deepEqual(kept.body.content, {
      email: { enabled: false },
      google: { enabled: true, clientId: GOOGLE_ID, clientSecretSet: true },
      github: { enabled: false, clientId: GITHUB_ID, clientSecretSet: true },
    });
    const deleted = await put(owner, appId, {
      email: { enabled: true },
      google: { enabled: false, clientSecret: null },
      github: { enabled: false, clientId: null, clientSecret: null },
    });
    assert.deepEqual(deleted.body.content, {
      email: { enabled: true },
      google: { enabled: false, clientId: GOOGLE_ID, clientSecretSet: false },
      github: { enabled: false, clientSecretSet: false },
    });
    const replaced = await put(owner, appId, {
      email: { enabled: true },
      google: { enabled: true, clientSecret: 'a-new-secret' },
      github: { enabled: false },
    });
    assert.deepEqual(replaced.body.content.google, { enabled: true, clientId: GOOGLE_ID, clientSecretSet: true });
  });

  test('enabling Google or GitHub without a client id and a secret is 422 and changes nothing', async () => {
    const appId = await teamApp();
    await put(owner, appId, { ...bothEnabled, github: { enabled: false } });
    const before = (await get(owner, appId)).body.content;
    const cases = [
      { email: { enabled: false }, google: { enabled: true }, github: { enabled: true, clientId: GITHUB_ID } },
      { email: { enabled: false }, google: { enabled: true, clientSecret: null }, github: { enabled: false } },
      { email: { enabled: false }, google: { enabled: true, clientId: null }, github: { enabled: false } },
    ];
    for (const body of cases) {
      const res = await put(owner, appId, body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.equal(res.body.code, 'OAUTH_PROVIDER_NOT_CONFIGURED');
      assert.match(res.body.message, /needs a client id and a client secret/);
    }
    assert.deepEqual((await get(owner, appId)).body.content, before, 'not even the email flag changed');
  });

  test("another operator's app, an unknown app and an archived app answer 404", async () => {
    const appId = await teamApp();
    for (const res of [
      await get(outsider, appId),
      await put(outsider, appId, bothEnabled),
      await get(owner, 'app_0000000000000000000000'),
    ]) {
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'APPLICATION_NOT_FOUND');
    }
    assert.equal((await owner.call('archiveApp', 'POST', `/api/v1/apps/${appId}/archive`)).status, 200);
    assert.equal((await put(owner, appId, bothEnabled)).status, 404);
    assert.equal(await svc.deps.db('app_auth_providers').where({ app_id: appId }).first(), undefined, 'nothing stored');
  });

  test('400 VALIDATION_ERROR for a missing provider, an unknown field or a read-only field', async () => {
    const appId = await teamApp();
    const bodies = [
      { email: { enabled: true }, google: { enabled: false } },
      { ...bothEnabled, google: { ...bothEnabled.google, clientSecretSet: true } },
      { ...bothEnabled, email: { enabled: true, clientId: 'x' } },
      { ...bothEnabled, google: { clientId: GOOGLE_ID } },
    ];
    for (const body of bodies) {
      const res = await put(owner, appId, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 'VALIDATION_ERROR');
    }
    assert.equal(await svc.deps.db('app_auth_providers').where({ app_id: appId }).first(), undefined, 'nothing stored');
  });
});
