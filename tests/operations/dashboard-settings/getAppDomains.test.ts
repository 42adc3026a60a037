// getAppDomains (GET /api/v1/apps/{appId}/domains): get an app's allowed origins and redirect URIs.
// Shared set-up: appDomains.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { get, outsider, owner, put, teamApp, useService } from './appDomains.setup';

describe('getAppDomains', () => {
  useService();

  test('a new app has no origins and no redirect URIs', async () => {
    const appId = await teamApp();
    const res = await get(owner, appId);
    assert.equal(res.status, 200);
    assert.equal(res.body.code, 'APP_DOMAINS_FETCHED');
    assert.deepEqual(res.body.content, { origins: [], redirectUris: [] });
  });

  test("another operator's app: 404 APPLICATION_NOT_FOUND on read and replace, and nothing changes", async () => {
    const appId = await teamApp();
    await put(owner, appId, { origins: ['https://app.example.com'], redirectUris: [] });
    for (const res of [
      await get(outsider, appId),
      await put(outsider, appId, { origins: ['https://evil.example.com'], redirectUris: [] }),
    ]) {
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'APPLICATION_NOT_FOUND');
    }
    assert.deepEqual((await get(owner, appId)).body.content.origins, ['https://app.example.com']);
  });

  test('an archived app: 404 on read and replace; its domains are kept for a restore', async () => {
    const appId = await teamApp();
    const domains = { origins: ['https://app.example.com'], redirectUris: ['myapp://cb'] };
    await put(owner, appId, domains);
    await owner.call('archiveApp', 'POST', `/api/v1/apps/${appId}/archive`);
    for (const res of [await get(owner, appId), await put(owner, appId, { origins: [], redirectUris: [] })]) {
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'APPLICATION_NOT_FOUND');
    }
    await owner.call('restoreApp', 'POST', `/api/v1/apps/${appId}/restore`);
    assert.deepEqual((await get(owner, appId)).body.content, domains);
  });
});
