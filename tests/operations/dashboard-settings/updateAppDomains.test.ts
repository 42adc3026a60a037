// updateAppDomains (PUT /api/v1/apps/{appId}/domains): replace an app's allowed origins and redirect URIs.
// Shared set-up: appDomains.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createApiKey } from '../../../src/domain/apiKeys/apiKeys';
import { call } from '../../support/http';
import { VALID_G, developer, get, owner, put, svc, teamApp, useService } from './appDomains.setup';

describe('updateAppDomains', () => {
  useService();

  test('replaces both lists, kept in the given order; any member may read and change them', async () => {
    const appId = await teamApp();
    const first = {
      origins: ['https://app.example.com', 'http://localhost:3000', 'http://127.0.0.1:8080'],
      redirectUris: ['https://app.example.com/auth/callback', 'com.example.app://auth/callback'],
    };
    const res = await put(owner, appId, first);
    assert.equal(res.status, 200);
    assert.equal(res.body.code, 'APP_DOMAINS_UPDATED');
    assert.deepEqual(res.body.content, first);
    assert.deepEqual((await get(developer, appId)).body.content, first);

    const second = { origins: ['https://shop.example.com', 'https://app.example.com'], redirectUris: [] };
    const replaced = await put(developer, appId, second);
    assert.equal(replaced.status, 200);
    assert.deepEqual(replaced.body.content, second, 'a complete replacement, not a merge');
    assert.deepEqual((await get(owner, appId)).body.content, second);

    const emptied = await put(owner, appId, { origins: [], redirectUris: [] });
    assert.deepEqual(emptied.body.content, { origins: [], redirectUris: [] });
  });

  test('the gate uses the new origins from the next request', async () => {
    const appId = await teamApp();
    const key = await createApiKey(svc.deps.db, { appId, type: 'secret', network: 'testnet' });
    const fundFrom = (origin: string) =>
      call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', {
        headers: { 'x-service-api-key': key.key, origin },
        body: { publicKey: VALID_G },
      });
    await put(owner, appId, { origins: ['https://old.example.com'], redirectUris: [] });
    assert.notEqual((await fundFrom('https://old.example.com')).body.code, 'ORIGIN_NOT_ALLOWED');
    assert.equal((await fundFrom('https://new.example.com')).body.code, 'ORIGIN_NOT_ALLOWED');
    await put(owner, appId, { origins: ['https://new.example.com'], redirectUris: [] });
    assert.notEqual((await fundFrom('https://new.example.com')).body.code, 'ORIGIN_NOT_ALLOWED');
    const old = await fundFrom('https://old.example.com');
    assert.equal(old.status, 403);
    assert.equal(old.body.code, 'ORIGIN_NOT_ALLOWED');
  });

  test('400 VALIDATION_ERROR with field errors keyed by list and index, and nothing is stored', async () => {
    const appId = await teamApp();
    const stored = { origins: ['https://app.example.com'], redirectUris: ['https://app.example.com/cb'] };
    await put(owner, appId, stored);
    const ok = 'https://ok.example.com';
    const cases: [unknown, string][] = [
      [{ origins: [ok, 'https://App.example.com'], redirectUris: [] }, 'origins.1'],
      [{ origins: [ok, 'https://app.example.com/path'], redirectUris: [] }, 'origins.1'],
      [{ origins: ['https://app.example.com/'], redirectUris: [] }, 'origins.0'],
      [{ origins: ['https://*.example.com'], redirectUris: [] }, 'origins.0'],
      [{ origins: ['http://app.example.com'], redirectUris: [] }, 'origins.0'],
      [{ origins: [ok, ok], redirectUris: [] }, 'origins'],
      [{ origins: Array.from({ length: 51 }, (_, i) => `https://a${i}.example.com`), redirectUris: [] }, 'origins'],
      [{ origins: [ok, 'https://app.example.com:443'], redirectUris: [] }, 'origins.1'],
      [{ origins: ['https://app.example.com:99999'], redirectUris: [] }, 'origins.0'],
      [{ origins: [], redirectUris: ['https://app.example.com/cb#done'] }, 'redirectUris.0'],
      [{ origins: [], redirectUris: ['https://*.example.com/cb'] }, 'redirectUris.0'],
      [{ origins: [], redirectUris: ['/relative/cb'] }, 'redirectUris.0'],
      [{ origins: [], redirectUris: ['https://app.example.com/a', 'javascript://x/%0aalert(1)'] }, 'redirectUris.1'],
      [{ origins: [] }, 'redirectUris'],
      [{ origins: [], redirectUris: [], wildcard: true }, 'wildcard'],
    ];
    for (const [body, field] of cases) {
      const res = await put(owner, appId, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.ok(
        res.body.details.fieldErrors[field],
        `${JSON.stringify(body).slice(0, 120)}: ${JSON.stringify(res.body.details)}`,
      );
    }
    const defaultPort = await put(owner, appId, { origins: ['https://app.example.com:443'], redirectUris: [] });
    assert.deepEqual(defaultPort.body.details.fieldErrors, {
      'origins.0': ['must be written as https://app.example.com'],
    });
    assert.deepEqual((await get(owner, appId)).body.content, stored);
  });
});
