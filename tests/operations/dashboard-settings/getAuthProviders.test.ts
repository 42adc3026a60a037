// getAuthProviders (GET /api/v1/apps/{appId}/auth-providers): get an app's end-user sign-in providers.
// Shared set-up: authProviders.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bothEnabled, get, outsider, owner, put, svc, teamApp, useService } from './authProviders.setup';

describe('getAuthProviders', () => {
  useService();

  test('a new app offers email codes only (Stellar wallet sign-in is off until turned on)', async () => {
    const res = await get(owner, await teamApp());
    assert.equal(res.status, 200);
    assert.equal(res.body.code, 'AUTH_PROVIDERS_FETCHED');
    assert.deepEqual(res.body.content, {
      email: { enabled: true },
      google: { enabled: false, clientSecretSet: false },
      github: { enabled: false, clientSecretSet: false },
      stellar: { enabled: false },
    });
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
});
