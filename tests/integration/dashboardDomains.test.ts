// Dashboard domains over HTTP with real operator sessions, every answer checked against the contract: reading and
// replacing an app's allowed origins and OAuth redirect URIs (exact forms only, in the operator's order, both lists in
// one transaction), the gate using the new origins at once, field errors keyed like the router's, cross-operator
// isolation and archived apps.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createApiKey } from '../../src/domain/apiKeys/apiKeys';
import { call } from '../support/http';
import { signInOperator, type OperatorClient } from '../support/operators';
import { startTestService, type TestService } from '../support/service';

const VALID_G = 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2';

describe('Dashboard domains', () => {
  let svc: TestService;
  let owner: OperatorClient;
  let developer: OperatorClient;
  let outsider: OperatorClient;

  async function teamApp(): Promise<string> {
    const created = await owner.call('createApp', 'POST', '/api/v1/apps', {
      body: { name: 'Domains app', network: 'testnet' },
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
    client.call('updateAppDomains', 'PUT', `/api/v1/apps/${appId}/domains`, { body });
  const get = (client: OperatorClient, appId: string) =>
    client.call('getAppDomains', 'GET', `/api/v1/apps/${appId}/domains`);

  before(async () => {
    svc = await startTestService();
    [owner, developer, outsider] = await Promise.all([signInOperator(svc), signInOperator(svc), signInOperator(svc)]);
  });
  after(async () => {
    await svc?.stop();
  });

  test('a new app has no origins and no redirect URIs', async () => {
    const appId = await teamApp();
    const res = await get(owner, appId);
    assert.equal(res.status, 200);
    assert.equal(res.body.code, 'APP_DOMAINS_FETCHED');
    assert.deepEqual(res.body.content, { origins: [], redirectUris: [] });
  });

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
