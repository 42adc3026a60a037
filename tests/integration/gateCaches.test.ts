// The gate's caches (API keys, live sessions) with two API processes on one database: a key used on both is served
// from memory (no key query per request), and a revocation, a rotation without overlap, an archived app, a removed
// origin or a sign-out made in one process (or by SQL, as the admin CLI would) takes effect on the other at once,
// because migrations 0030 and 0032's triggers NOTIFY every listening process when the change commits. Also: the cache
// keeps nothing while its feed is down, and holds at most its bound.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { archiveApp } from '../../src/domain/apps/store';
import { createApiKey, hashApiKey, revokeApiKey } from '../../src/domain/apiKeys/apiKeys';
import { createKeyCache } from '../../src/domain/apiKeys/keyCache';
import type { ChangeFeed, ChangeSubscriber } from '../../src/infra/db/changeFeed';
import { headersFor, seedCredentials, withSessions, type SeededCredentials } from '../support/credentials';
import { call } from '../support/http';
import { startTestService, type TestService } from '../support/service';

const VALID_G = 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2';

/** fundWallet with `key`: 404 WALLET_NOT_FOUND means the key passed the gate. */
async function fundWith(svc: TestService, key: string, headers: Record<string, string> = {}) {
  const res = await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', {
    headers: { 'x-service-api-key': key, ...headers },
    body: { publicKey: VALID_G },
  });
  return { status: res.status, code: res.body.code as string };
}

const PASSED = { status: 404, code: 'WALLET_NOT_FOUND' };

/** Counts the queries process `svc` sends that read api_keys (the gate's lookup). */
function keyQueryCounter(svc: TestService): { count: () => number } {
  let n = 0;
  svc.deps.db.on('query', (q: { sql?: string }) => {
    if (q.sql?.startsWith('select') && q.sql.includes('"api_keys"')) n += 1;
  });
  return { count: () => n };
}

describe('the gate caches across two API processes', () => {
  let a: TestService;
  let b: TestService;
  before(async () => {
    // One deployment: the same database and service secret (tokens minted by one process are valid on the other).
    const deployment = { ONBOARD_SECRET: randomBytes(32).toString('hex') };
    a = await startTestService(deployment);
    b = await startTestService(deployment, { database: a.database });
  });
  after(async () => {
    await b?.stop();
    await a?.stop();
  });

  test('a key used again is answered from memory: 20 requests, at most one key query', async () => {
    const creds = await seedCredentials(a.deps.db);
    const queries = keyQueryCounter(b);
    for (let i = 0; i < 20; i++) assert.deepEqual(await fundWith(b, creds.secretKey), PASSED);
    assert.ok(queries.count() <= 1, `${queries.count()} key queries for 20 requests`);
  });

  test('revoked through process A (Dashboard revokeApiKey): the next request on process B is refused, 30 times in a row', async () => {
    for (let i = 0; i < 30; i++) {
      const creds = await withSessions(a.deps, await seedCredentials(a.deps.db));
      assert.deepEqual(await fundWith(b, creds.secretKey), PASSED, 'warm on B');
      const url = `${a.url}/api/v1/apps/${creds.app.id}/api-keys/${creds.secretKeyId}`;
      const headers = await headersFor(['operatorSession', 'dpopProof'], creds, { method: 'DELETE', url });
      const revoked = await call(
        a.url,
        'revokeApiKey',
        'DELETE',
        `/api/v1/apps/${creds.app.id}/api-keys/${creds.secretKeyId}`,
        {
          headers,
        },
      );
      assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
      assert.deepEqual(await fundWith(b, creds.secretKey), { status: 401, code: 'API_KEY_NOT_FOUND' }, `round ${i}`);
      assert.deepEqual(await fundWith(a, creds.secretKey), { status: 401, code: 'API_KEY_NOT_FOUND' }, `round ${i}`);
    }
  });

  test('revoked by SQL outside the service: refused at once on both processes', async () => {
    for (let i = 0; i < 30; i++) {
      const creds = await seedCredentials(a.deps.db);
      assert.deepEqual(await fundWith(a, creds.secretKey), PASSED);
      assert.deepEqual(await fundWith(b, creds.secretKey), PASSED);
      await revokeApiKey(a.deps.db, creds.secretKeyId);
      assert.deepEqual(await fundWith(b, creds.secretKey), { status: 401, code: 'API_KEY_NOT_FOUND' }, `round ${i}`);
      assert.deepEqual(await fundWith(a, creds.secretKey), { status: 401, code: 'API_KEY_NOT_FOUND' }, `round ${i}`);
    }
  });

  test('an archived app: its keys answer 404 APPLICATION_NOT_FOUND on the other process at once', async () => {
    const creds = await seedCredentials(a.deps.db);
    assert.deepEqual(await fundWith(b, creds.secretKey), PASSED);
    await archiveApp(a.deps.db, creds.app.id);
    assert.deepEqual(await fundWith(b, creds.secretKey), { status: 404, code: 'APPLICATION_NOT_FOUND' });
  });

  test('a rotation without overlap: the old key is expired at once on the other process, the new one works', async () => {
    const creds = await withSessions(a.deps, await seedCredentials(a.deps.db));
    assert.deepEqual(await fundWith(b, creds.secretKey), PASSED);
    const path = `/api/v1/apps/${creds.app.id}/api-keys/${creds.secretKeyId}/rotate`;
    const headers = await headersFor(['operatorSession', 'dpopProof'], creds, {
      method: 'POST',
      url: `${a.url}${path}`,
    });
    const rotated = await call(a.url, 'rotateApiKey', 'POST', path, { headers, body: { overlapSeconds: 0 } });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    assert.deepEqual(await fundWith(b, creds.secretKey), { status: 401, code: 'API_KEY_EXPIRED' });
    assert.deepEqual(await fundWith(b, rotated.body.content.key.key as string), PASSED);
  });

  test('a session signed out through process A: its next request on process B is refused, 20 times in a row', async () => {
    for (let i = 0; i < 20; i++) {
      const creds = await withSessions(a.deps, await seedCredentials(a.deps.db));
      const operatorCall = async (svc: TestService, id: string, method: string, path: string, body?: unknown) => {
        const headers = await headersFor(['operatorSession', 'dpopProof'], creds, { method, url: `${svc.url}${path}` });
        return call(svc.url, id as never, method, path, { headers, ...(body ? { body } : {}) });
      };
      assert.equal((await operatorCall(b, 'getCurrentOperator', 'GET', '/api/v1/me')).status, 200, 'warm on B');
      const out = await operatorCall(a, 'signOutOperator', 'POST', '/api/v1/auth/logout', {});
      assert.ok(out.status < 300, JSON.stringify(out.body));
      const after = await operatorCall(b, 'getCurrentOperator', 'GET', '/api/v1/me');
      assert.deepEqual([after.status, after.body.code], [401, 'SDK_AUTH_INVALID_TOKEN'], `round ${i}`);
    }
  });

  test('a request waits for the change feed once, from when it enters the gate: an SDK call (key, session, proof) and an operator call make one sync each', async () => {
    const creds = await withSessions(b.deps, await seedCredentials(b.deps.db));
    const feed = b.deps.changes!;
    const sync = feed.sync.bind(feed);
    let syncs = 0;
    // The caches and the gate call the feed's sync through the object: counted here, passed on unchanged.
    (feed as { sync: () => Promise<void> }).sync = () => ((syncs += 1), sync());
    try {
      const sdk = async () => {
        const target = { method: 'GET', url: `${b.url}/v1/wallet` };
        const headers = await headersFor(['publishableKey', 'userSession', 'dpopProof'], creds, target);
        return call(b.url, 'getWallet', 'GET', '/v1/wallet', { headers });
      };
      const operator = async () => {
        const target = { method: 'GET', url: `${b.url}/api/v1/me` };
        const headers = await headersFor(['operatorSession', 'dpopProof'], creds, target);
        return call(b.url, 'getCurrentOperator', 'GET', '/api/v1/me', { headers });
      };
      for (const [name, request] of [
        ['SDK', sdk],
        ['operator', operator],
      ] as const) {
        await request(); // the key, session and proof key seen once (a first use reads the database)
        syncs = 0;
        for (let i = 0; i < 5; i++) assert.ok((await request()).status < 500);
        assert.equal(syncs, 5, `${name}: ${syncs} syncs for 5 requests`);
      }
    } finally {
      (feed as { sync: () => Promise<void> }).sync = sync;
    }
  });

  test("an origin removed from the app's list: a browser request from it is refused at once on the other process", async () => {
    const creds = await seedCredentials(a.deps.db, { origins: ['https://shop.example.com'] });
    const origin = { origin: 'https://shop.example.com' };
    assert.deepEqual(await fundWith(b, creds.secretKey, origin), PASSED);
    await a.deps.db('app_origins').where({ app_id: creds.app.id }).delete();
    assert.deepEqual(await fundWith(b, creds.secretKey, origin), { status: 403, code: 'ORIGIN_NOT_ALLOWED' });
  });
});

describe('the key cache itself', () => {
  let svc: TestService;
  let creds: SeededCredentials;
  before(async () => {
    svc = await startTestService();
    creds = await seedCredentials(svc.deps.db);
  });
  after(async () => {
    await svc?.stop();
  });

  /** A feed the test drives: connected or not, and what it hears. */
  function fakeFeed(connected: boolean): ChangeFeed & { subscriber?: ChangeSubscriber; up: boolean } {
    const feed = {
      up: connected,
      subscriber: undefined as ChangeSubscriber | undefined,
      get connected() {
        return feed.up;
      },
      subscribe(_channel: string, s: ChangeSubscriber) {
        feed.subscriber = s;
      },
      sync: async () => undefined,
      queuedSync: () => undefined,
      carry: () => undefined,
      close: async () => undefined,
    };
    return feed;
  }

  test('keeps nothing while its feed is down (every lookup reads the database), and drops all when it resets', async () => {
    const feed = fakeFeed(false);
    const cache = createKeyCache(svc.deps.db, feed);
    const hash = hashApiKey(creds.secretKey);
    assert.ok(await cache.find(hash, Date.now()));
    assert.equal(cache.size, 0);
    feed.up = true;
    assert.ok(await cache.find(hash, Date.now()));
    assert.equal(cache.size, 1);
    feed.subscriber!.onReset();
    assert.equal(cache.size, 0);
  });

  test('a change heard while a lookup is running is not undone by that lookup (no stale row stored)', async () => {
    const feed = fakeFeed(true);
    const cache = createKeyCache(svc.deps.db, feed);
    // The change is heard while the lookup's query is on its way to the database.
    svc.deps.db.once('query', () => feed.subscriber!.onChange(creds.app.id));
    const lookup = cache.find(hashApiKey(creds.secretKey), Date.now());
    assert.ok(await lookup);
    assert.equal(cache.size, 0);
  });

  test('bounded: at most maxEntries keys (least recently used out), none trusted past maxAgeMs', async () => {
    const feed = fakeFeed(true);
    const cache = createKeyCache(svc.deps.db, feed, { maxEntries: 2, maxAgeMs: 1_000 });
    const keys = [];
    for (let i = 0; i < 3; i++)
      keys.push(await createApiKey(svc.deps.db, { appId: creds.app.id, type: 'secret', network: 'testnet' }));
    const queries = keyQueryCounter(svc);
    const t0 = Date.now();
    for (const k of keys) assert.ok(await cache.find(hashApiKey(k.key), t0));
    assert.equal(cache.size, 2);
    assert.equal(queries.count(), 3);
    await cache.find(hashApiKey(keys[2]!.key), t0); // kept: no query
    assert.equal(queries.count(), 3);
    await cache.find(hashApiKey(keys[0]!.key), t0); // the least recently used went first: read again
    assert.equal(queries.count(), 4);
    assert.equal(await cache.find(hashApiKey('sec_testnet_TestOnlyNotARealKey0000000000000'), t0), undefined);
    assert.equal(cache.size, 2, 'an unknown key is not kept');
    // A revocation this fake feed never hears: trusted until maxAgeMs, read again after.
    await revokeApiKey(svc.deps.db, keys[0]!.id);
    assert.equal((await cache.find(hashApiKey(keys[0]!.key), t0 + 999))?.key.revokedAt, null);
    assert.ok((await cache.find(hashApiKey(keys[0]!.key), t0 + 1_000))?.key.revokedAt);
  });
});
