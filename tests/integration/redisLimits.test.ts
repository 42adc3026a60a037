// RATE_LIMIT_STORE=redis with two API processes on one database and one Redis (skipped without REDIS_URL): the
// per-key limit is one count across both (the sum admitted is the limit, exactly); the testnet quota too, under
// concurrency, with no PostgreSQL write per request; Redis lost while running and back again: answered throughout,
// and counted in Redis again once it is back. And, needing no Redis (so it runs everywhere): with Redis unreachable
// every request is still answered (the rate limits by a limit per process, the quota by the PostgreSQL leases,
// exactly), and readiness reports Redis down without failing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createApiKey } from '../../src/domain/apiKeys/apiKeys';
import { dailyUsage, utcDay } from '../../src/domain/limits/dailyQuota';
import { dayQuotaKey } from '../../src/infra/limits/redisDailyQuota';
import { freePort } from '../../src/infra/freePort';
import { RECONNECT_MAX_MS } from '../../src/infra/redis/redis';
import { seedCredentials } from '../support/credentials';
import { call } from '../support/http';
import { dropKeys, freshKeyPrefix, rawRedis, skipWithoutRedis, testRedisUrl } from '../support/redis';
import { startTestService, type TestService } from '../support/service';

const VALID_G = 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2';
const NOON = new Date('2030-06-15T12:00:00.000Z');
const DAY = utcDay(NOON);

/** A fast keyed request: behind the gate fundWallet answers 404 for an unknown wallet. */
const fund = (svc: TestService, key: string) =>
  call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', {
    headers: { 'x-service-api-key': key },
    body: { publicKey: VALID_G },
  });

const pin = (...services: TestService[]) => {
  for (const svc of services) svc.deps.clock = { now: () => NOON };
};

/** Counts the writes to the PostgreSQL quota table (api_key_daily_usage) that `services` send. */
function quotaWrites(...services: TestService[]): () => number {
  let n = 0;
  for (const svc of services)
    svc.deps.db.on('query', (q: { sql?: string }) => {
      if (q.sql && /api_key_daily_usage/.test(q.sql) && /^\s*(insert|update)/i.test(q.sql)) n += 1;
    });
  return () => n;
}

/** `n` requests at once on each of two services; the answers of each. */
async function burst(first: TestService, second: TestService, key: string, n: number) {
  const many = (svc: TestService) => Promise.all(Array.from({ length: n }, () => fund(svc, key)));
  return Promise.all([many(first), many(second)]);
}

describe('limits shared through Redis (RATE_LIMIT_STORE=redis)', { skip: skipWithoutRedis }, () => {
  const keyPrefix = freshKeyPrefix();
  const env = {
    RATE_LIMIT_STORE: 'redis',
    REDIS_URL: testRedisUrl ?? '',
    REDIS_KEY_PREFIX: keyPrefix,
    LOCALNET: 'off',
    RATE_LIMIT_PER_KEY_PER_MINUTE: '80',
    TESTNET_DAILY_QUOTA: '50',
    // One deployment: the same service secret on both processes.
    ONBOARD_SECRET: randomBytes(32).toString('hex'),
  };
  let a: TestService;
  let b: TestService;
  before(async () => {
    a = await startTestService(env);
    b = await startTestService(env, { database: a.database });
    pin(a, b);
  });
  after(async () => {
    await b?.stop();
    await a?.stop();
    await dropKeys(keyPrefix);
  });

  test('the per-key limit is one count across both processes: 120 requests at once against 80, exactly 80 admitted', async () => {
    const creds = await seedCredentials(a.deps.db);
    // A mainnet key has no daily quota: only the per-minute limit counts.
    const mainnet = await createApiKey(a.deps.db, { appId: creds.app.id, type: 'secret', network: 'mainnet' });
    const [onA, onB] = await burst(a, b, mainnet.key, 60);
    const admitted = (answers: typeof onA) => answers.filter((r) => r.status !== 429).length;
    assert.equal(admitted(onA) + admitted(onB), 80, `admitted ${admitted(onA)} on A + ${admitted(onB)} on B`);
    assert.ok(admitted(onA) > 0 && admitted(onB) > 0, 'both processes admitted some');
    for (const r of [...onA, ...onB]) {
      if (r.status === 429) {
        assert.equal(r.body.code, 'RATE_LIMITED');
        const retryAfter = Number(r.headers.get('Retry-After'));
        assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
        assert.equal(r.headers.get('RateLimit-Remaining'), '0');
      } else assert.equal(r.status, 404, JSON.stringify(r.body));
    }
    // The next request on either process is refused too: the window is shared.
    assert.equal((await fund(a, mainnet.key)).status, 429);
    assert.equal((await fund(b, mainnet.key)).status, 429);
  });

  test('the testnet quota across both processes: 70 requests at once against 50, exactly 50 admitted, no PostgreSQL write', async () => {
    const creds = await seedCredentials(a.deps.db);
    const writes = quotaWrites(a, b);
    const [onA, onB] = await burst(a, b, creds.secretKey, 35);
    const all = [...onA, ...onB];
    const refused = all.filter((r) => r.status === 429);
    assert.equal(all.length - refused.length, 50, `admitted ${all.length - refused.length}`);
    for (const r of all.filter((x) => x.status !== 429)) assert.equal(r.status, 404, JSON.stringify(r.body));
    for (const r of refused) {
      assert.equal(r.body.code, 'RATE_LIMITED');
      assert.match(r.body.message, /testnet key used its 50 requests/);
      assert.equal(r.headers.get('Retry-After'), String(12 * 3600), 'until the next UTC midnight');
      assert.equal(r.headers.get('RateLimit-Limit'), '50');
    }
    // What is left is answered exactly: every count from 49 down to 0 once.
    const remaining = all
      .filter((r) => r.status !== 429)
      .map((r) => Number(r.headers.get('RateLimit-Remaining')))
      .sort((x, y) => x - y);
    assert.deepEqual(
      remaining,
      Array.from({ length: 50 }, (_, i) => i),
    );
    // Counted in Redis, one key for the key and day; nothing in PostgreSQL.
    const redis = rawRedis();
    try {
      assert.equal(await redis.get(`${keyPrefix}${dayQuotaKey(creds.secretKeyId, DAY)}`), '50');
    } finally {
      redis.disconnect();
    }
    assert.equal(writes(), 0, 'no write to api_key_daily_usage');
    assert.equal(await dailyUsage(a.deps.db, creds.secretKeyId, DAY), 0);
    assert.equal((await fund(b, creds.secretKey)).status, 429, 'used up on both');
  });

  test('readiness reports Redis up', async () => {
    const res = await call(a.url, 'getReadiness', 'GET', '/ready');
    assert.equal(res.status, 200);
    assert.equal(res.body.content.checks.redis.status, 'up');
    assert.equal(res.body.content.checks.database.status, 'up');
  });
});

// No Redis needed (nothing listens at its URL), so this part runs everywhere.
describe('Redis unreachable (RATE_LIMIT_STORE=redis, nothing listening at REDIS_URL)', () => {
  let svc: TestService;
  before(async () => {
    const closedPort = await freePort();
    svc = await startTestService({
      RATE_LIMIT_STORE: 'redis',
      REDIS_URL: `redis://127.0.0.1:${closedPort}/0`,
      LOCALNET: 'off',
      RATE_LIMIT_PER_KEY_PER_MINUTE: '5',
      TESTNET_DAILY_QUOTA: '3',
    });
    pin(svc);
  });
  after(async () => {
    await svc?.stop();
  });

  test('requests are answered at once: the testnet quota counted exactly by the PostgreSQL leases', async () => {
    const creds = await seedCredentials(svc.deps.db);
    const started = performance.now();
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await fund(svc, creds.secretKey)).status);
    assert.deepEqual(statuses, [404, 404, 404, 429]);
    assert.ok(performance.now() - started < 3000, `4 requests took ${Math.round(performance.now() - started)} ms`);
    assert.equal(await dailyUsage(svc.deps.db, creds.secretKeyId, DAY), 3, 'counted in PostgreSQL');
  });

  test('the per-key limit holds per process (the insurance limiter): 5 admitted, the 6th RATE_LIMITED', async () => {
    const creds = await seedCredentials(svc.deps.db);
    const mainnet = await createApiKey(svc.deps.db, { appId: creds.app.id, type: 'secret', network: 'mainnet' });
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await fund(svc, mainnet.key)).status);
    assert.deepEqual(statuses, [404, 404, 404, 404, 404, 429]);
  });

  test('readiness reports Redis down, and stays ready (the API answers without it)', async () => {
    const res = await call(svc.url, 'getReadiness', 'GET', '/ready');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.content.checks.redis.status, 'down');
    assert.match(res.body.content.checks.redis.detail, /not connected/);
  });
});

/** A TCP relay to the test Redis that can be cut (every connection dropped, nothing listening) and brought back. */
async function redisRelay(target: URL) {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const open = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((client) => {
        const upstream = connect(Number(target.port || 6379), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => undefined);
        }
        client.pipe(upstream).pipe(client);
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
  await open();
  return {
    url: `redis://127.0.0.1:${port}${target.pathname}`,
    cut: async () => {
      const closed = new Promise((resolve) => server?.close(resolve));
      for (const s of sockets) s.destroy();
      await closed;
    },
    restore: open,
  };
}

describe('Redis lost while running, then back', { skip: skipWithoutRedis }, () => {
  const keyPrefix = freshKeyPrefix();
  let svc: TestService;
  let relay: Awaited<ReturnType<typeof redisRelay>>;
  before(async () => {
    relay = await redisRelay(new URL(testRedisUrl!));
    svc = await startTestService({
      RATE_LIMIT_STORE: 'redis',
      REDIS_URL: relay.url,
      REDIS_KEY_PREFIX: keyPrefix,
      LOCALNET: 'off',
      TESTNET_DAILY_QUOTA: '1000',
    });
    pin(svc);
  });
  after(async () => {
    await svc?.stop();
    await relay?.cut();
    await dropKeys(keyPrefix);
  });

  test('answered throughout; counted in PostgreSQL while Redis is away, in Redis again once it is back', async () => {
    const creds = await seedCredentials(svc.deps.db);
    const redisCount = async () => {
      const redis = rawRedis();
      try {
        return Number(await redis.get(`${keyPrefix}${dayQuotaKey(creds.secretKeyId, DAY)}`));
      } finally {
        redis.disconnect();
      }
    };
    for (let i = 0; i < 5; i++) assert.equal((await fund(svc, creds.secretKey)).status, 404);
    assert.equal(await redisCount(), 5);
    assert.equal((await call(svc.url, 'getReadiness', 'GET', '/ready')).body.content.checks.redis.status, 'up');

    await relay.cut();
    const started = performance.now();
    for (let i = 0; i < 5; i++) assert.equal((await fund(svc, creds.secretKey)).status, 404, `request ${i} while down`);
    assert.ok(performance.now() - started < 5000, `5 requests took ${Math.round(performance.now() - started)} ms`);
    const down = await call(svc.url, 'getReadiness', 'GET', '/ready');
    assert.equal(down.status, 200);
    assert.equal(down.body.content.checks.redis.status, 'down');
    assert.equal(await redisCount(), 5, 'nothing counted in Redis while it was away');
    assert.ok((await dailyUsage(svc.deps.db, creds.secretKeyId, DAY)) >= 5, 'the PostgreSQL leases counted them');

    await relay.restore();
    const deadline = Date.now() + RECONNECT_MAX_MS * 3 + 2000;
    while ((await call(svc.url, 'getReadiness', 'GET', '/ready')).body.content.checks.redis.status !== 'up') {
      assert.ok(Date.now() < deadline, 'reconnected within a few reconnection intervals');
      await sleep(100);
    }
    for (let i = 0; i < 3; i++) assert.equal((await fund(svc, creds.secretKey)).status, 404);
    assert.equal(await redisCount(), 8, 'counted in Redis again');
  });
});
