// updateAuthProviders (PUT /api/v1/apps/{appId}/auth-providers): set an app's end-user sign-in providers.
// Shared set-up: authProviders.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openClientSecret } from '../../../src/domain/oauth/clientSecrets';
import {
  GITHUB_ID,
  GITHUB_SECRET,
  GOOGLE_ID,
  GOOGLE_SECRET,
  bothEnabled,
  bothShown,
  developer,
  get,
  owner,
  put,
  svc,
  teamApp,
  useService,
} from './authProviders.setup';

describe('updateAuthProviders', () => {
  useService();

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
      stellar: { enabled: false },
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
      stellar: { enabled: false },
    });
    const replaced = await put(owner, appId, {
      email: { enabled: true },
      google: { enabled: true, clientSecret: 'a-new-secret' },
      github: { enabled: false },
    });
    assert.deepEqual(replaced.body.content.google, { enabled: true, clientId: GOOGLE_ID, clientSecretSet: true });
  });

  test('Stellar wallet sign-in: turned on and off; omitted keeps the stored setting', async () => {
    const appId = await teamApp();
    const on = await put(owner, appId, { ...bothEnabled, stellar: { enabled: true } });
    assert.equal(on.status, 200, on.text);
    assert.deepEqual(on.body.content.stellar, { enabled: true });
    const kept = await put(owner, appId, bothEnabled);
    assert.deepEqual(kept.body.content.stellar, { enabled: true });
    const off = await put(owner, appId, { ...bothEnabled, stellar: { enabled: false } });
    assert.deepEqual(off.body.content.stellar, { enabled: false });
    const extra = await put(owner, appId, { ...bothEnabled, stellar: { enabled: true, clientId: 'x' } });
    assert.equal(extra.status, 400);
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
