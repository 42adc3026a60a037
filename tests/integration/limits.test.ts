// The gate's limits on real PostgreSQL (issue #4): the testnet quota per key per UTC day, counted durably and never
// overshot under concurrent requests, with Retry-After until the next UTC midnight; the per-key rate limit (in
// process, and shared by instances through PostgreSQL); RateLimit-* headers on every keyed answer; mainnet keys have
// no daily quota. Every answer is checked against the contract by `call`.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { operations } from '../../generated/server/catalogue.gen';
import { createApiKey } from '../../src/domain/apiKeys/apiKeys';
import { dailyUsage, secondsUntilNextUtcMidnight, setDailyUsage, utcDay } from '../../src/domain/limits/dailyQuota';
import { IDLE_RETURN_MS } from '../../src/domain/limits/quotaLeases';
import { sampleCredentials, seedCredentials } from '../support/credentials';
import { freshDatabase } from '../support/database';
import { call } from '../support/http';
import { startTestService, type TestService } from '../support/service';

const VALID_G = 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2';
/** A fast keyed request: behind the gate fundWallet answers 404 for an unknown wallet (400 with `invalid: true`); both count. */
const fund = (svc: TestService, key: string, opts: { invalid?: boolean } = {}) =>
  call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', {
    headers: { 'x-service-api-key': key },
    body: opts.invalid ? {} : { publicKey: VALID_G },
  });

const NOON = new Date('2030-06-15T12:00:00.000Z');
const pin = (svc: TestService, at: Date) => {
  svc.deps.clock = { now: () => at };
};
const int = (h: Headers, name: string) => {
  const v = h.get(name);
  assert.ok(v !== null && /^\d+$/.test(v), `${name} is a non-negative integer, got ${v}`);
  return Number(v);
};

test('every operation behind an API key documents 429 (the limits apply to all of them)', () => {
  for (const [id, op] of Object.entries(operations)) {
    if (
      !(op.security as readonly (readonly string[])[]).some(
        (r) => r.includes('secretKey') || r.includes('publishableKey'),
      )
    )
      continue;
    assert.ok((op.statuses as readonly number[]).includes(429), `${id} does not document 429`);
  }
});

test('secondsUntilNextUtcMidnight and utcDay work in UTC', () => {
  assert.equal(secondsUntilNextUtcMidnight(new Date('2030-06-15T23:59:30.000Z')), 30);
  assert.equal(secondsUntilNextUtcMidnight(new Date('2030-06-15T23:59:59.500Z')), 1);
  assert.equal(secondsUntilNextUtcMidnight(new Date('2030-06-15T00:00:00.000Z')), 86_400);
  assert.equal(utcDay(new Date('2030-06-15T23:59:59.999Z')), '2030-06-15');
});

describe('the testnet quota (TESTNET_DAILY_QUOTA=100)', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({
      LOCALNET: 'off',
      TESTNET_DAILY_QUOTA: '100',
      RATE_LIMIT_PER_KEY_PER_MINUTE: '1000',
    });
    pin(svc, NOON);
  });
  after(async () => {
    await svc?.stop();
  });

  test('50 concurrent clients against a key with exactly 30 requests left: exactly 30 pass, 20 RATE_LIMITED; invalid requests cost none', async () => {
    const creds = await seedCredentials(svc.deps.db);
    await setDailyUsage(svc.deps.db, creds.secretKeyId, utcDay(NOON), 70);
    const invalid = await Promise.all(Array.from({ length: 20 }, () => fund(svc, creds.secretKey, { invalid: true })));
    for (const r of invalid) assert.equal(r.status, 400);
    assert.equal(
      await dailyUsage(svc.deps.db, creds.secretKeyId, utcDay(NOON)),
      70,
      'requests that fail validation cost no quota',
    );
    const answers = await Promise.all(Array.from({ length: 50 }, () => fund(svc, creds.secretKey)));
    const limited = answers.filter((r) => r.status === 429);
    assert.equal(answers.length - limited.length, 30, 'exactly 30 answers are not 429');
    assert.equal(limited.length, 20);
    for (const r of limited) {
      assert.equal(r.body.code, 'RATE_LIMITED');
      assert.equal(int(r.headers, 'Retry-After'), 12 * 3600, 'Retry-After runs to the next UTC midnight');
      assert.equal(int(r.headers, 'RateLimit-Remaining'), 0);
      assert.equal(int(r.headers, 'RateLimit-Limit'), 100);
    }
    for (const r of answers.filter((a) => a.status !== 429))
      assert.ok([400, 404].includes(r.status), `got ${r.status}`);
    assert.equal(await dailyUsage(svc.deps.db, creds.secretKeyId, utcDay(NOON)), 100, 'the count stops at the quota');
    const invalidAfter = await fund(svc, creds.secretKey, { invalid: true });
    assert.equal(invalidAfter.status, 400, 'validation comes before the quota');
  });

  test('keyed answers carry RateLimit-* headers of the day quota; Retry-After until UTC midnight once used up', async () => {
    const creds = await seedCredentials(svc.deps.db);
    const evening = new Date('2030-06-15T23:59:30.000Z');
    pin(svc, evening);
    try {
      await setDailyUsage(svc.deps.db, creds.publishableKeyId, utcDay(evening), 97);
      await setDailyUsage(svc.deps.db, creds.secretKeyId, utcDay(evening), 98);
      const first = await fund(svc, creds.secretKey);
      assert.equal(first.status, 404);
      assert.equal(int(first.headers, 'RateLimit-Limit'), 100);
      assert.equal(int(first.headers, 'RateLimit-Remaining'), 1);
      assert.equal(int(first.headers, 'RateLimit-Reset'), 30);
      const invalid = await fund(svc, creds.secretKey, { invalid: true });
      assert.equal(invalid.status, 400, 'an invalid body costs no quota');
      assert.equal(int(invalid.headers, 'RateLimit-Limit'), 1000, 'its headers are the per-minute window');
      const last = await fund(svc, creds.secretKey);
      assert.equal(last.status, 404);
      assert.equal(int(last.headers, 'RateLimit-Remaining'), 0);
      const over = await fund(svc, creds.secretKey);
      assert.equal(over.status, 429);
      assert.equal(over.body.code, 'RATE_LIMITED');
      assert.equal(int(over.headers, 'Retry-After'), 30);
      assert.equal(int(over.headers, 'RateLimit-Reset'), 30);
      // The next UTC day starts afresh.
      pin(svc, new Date('2030-06-16T00:00:01.000Z'));
      const tomorrow = await fund(svc, creds.secretKey);
      assert.equal(tomorrow.status, 404);
      assert.equal(int(tomorrow.headers, 'RateLimit-Remaining'), 99);
    } finally {
      pin(svc, NOON);
    }
  });

  test('a mainnet key has no daily quota (the per-minute limit still answers its headers)', async () => {
    const creds = await seedCredentials(svc.deps.db);
    const mainnet = await createApiKey(svc.deps.db, { appId: creds.app.id, type: 'secret', network: 'mainnet' });
    for (let i = 0; i < 105; i++) {
      const res = await fund(svc, mainnet.key);
      assert.notEqual(res.status, 429, `request ${i + 1}`);
      if (i === 104) {
        assert.equal(int(res.headers, 'RateLimit-Limit'), 1000);
        assert.equal(int(res.headers, 'RateLimit-Remaining'), 1000 - 105);
      }
    }
    assert.equal(await dailyUsage(svc.deps.db, mainnet.id, utcDay(NOON)), 0, 'nothing is counted for mainnet keys');
  });

  test('unauthenticated requests cost no quota and get no RateLimit headers', async () => {
    const usage = async () => JSON.stringify(await svc.deps.db('api_key_daily_usage').orderBy(['key_id', 'day']));
    // The earlier tests' keys may still give back an idle lease (IDLE_RETURN_MS after their last request), which moves
    // their counts: wait until the counts are still, so that only this request could move one.
    let before = await usage();
    for (let i = 0; i < 10; i++) {
      await new Promise((r) => setTimeout(r, 2 * IDLE_RETURN_MS));
      const now = await usage();
      if (now === before) break;
      before = now;
    }
    const res = await fund(svc, sampleCredentials.secretKey);
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('RateLimit-Limit'), null);
    assert.equal(await usage(), before, 'no count moved');
  });
});

test('the quota survives a restart of the service (same database)', async () => {
  const database = await freshDatabase();
  const env = { LOCALNET: 'off', TESTNET_DAILY_QUOTA: '5' };
  try {
    const first = await startTestService(env, { database });
    pin(first, NOON);
    const creds = await seedCredentials(first.deps.db);
    try {
      for (let i = 0; i < 5; i++) assert.equal((await fund(first, creds.secretKey)).status, 404);
      assert.equal((await fund(first, creds.secretKey)).status, 429);
    } finally {
      await first.stop();
    }
    const second = await startTestService(env, { database });
    pin(second, NOON);
    try {
      const res = await fund(second, creds.secretKey);
      assert.equal(res.status, 429);
      assert.equal(res.body.code, 'RATE_LIMITED');
      assert.equal(await dailyUsage(second.deps.db, creds.secretKeyId, utcDay(NOON)), 5);
    } finally {
      await second.stop();
    }
  } finally {
    await database.drop();
  }
});

test('per-key rate limit (in process): 429 RATE_LIMITED with Retry-After and RateLimit-*; other keys unaffected; refused requests cost no quota', async () => {
  // A quota of 10: counted a request at a time (quota leases take single requests below 20 left), so the count is exact.
  const svc = await startTestService({
    LOCALNET: 'off',
    RATE_LIMIT_PER_KEY_PER_MINUTE: '3',
    TESTNET_DAILY_QUOTA: '10',
  });
  try {
    const creds = await seedCredentials(svc.deps.db);
    const now = svc.deps.clock.now();
    for (let i = 0; i < 3; i++) {
      const ok = await fund(svc, creds.secretKey);
      assert.equal(ok.status, 404);
      assert.equal(int(ok.headers, 'RateLimit-Limit'), 3);
      assert.equal(int(ok.headers, 'RateLimit-Remaining'), 2 - i);
    }
    const res = await fund(svc, creds.secretKey);
    assert.equal(res.status, 429);
    assert.equal(res.body.code, 'RATE_LIMITED');
    const retry = int(res.headers, 'Retry-After');
    assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
    assert.equal(int(res.headers, 'RateLimit-Limit'), 3);
    assert.equal(int(res.headers, 'RateLimit-Remaining'), 0);
    assert.equal(int(res.headers, 'RateLimit-Reset'), retry);
    assert.equal(
      await dailyUsage(svc.deps.db, creds.secretKeyId, utcDay(now)),
      3,
      'the refused request was not counted',
    );
    const other = await call(svc.url, 'getUser', 'GET', '/v1/users/someone', {
      headers: { 'x-service-api-key': (await seedCredentials(svc.deps.db)).secretKey },
    });
    assert.notEqual(other.status, 429);
  } finally {
    await svc.stop();
  }
});

test('RATE_LIMIT_STORE=postgres: two instances on one database share one per-key limit', async () => {
  const database = await freshDatabase();
  const env = { LOCALNET: 'off', RATE_LIMIT_STORE: 'postgres', RATE_LIMIT_PER_KEY_PER_MINUTE: '4' };
  const a = await startTestService(env, { database });
  const b = await startTestService(env, { database });
  try {
    const creds = await seedCredentials(a.deps.db);
    assert.equal((await fund(a, creds.secretKey)).status, 404);
    assert.equal((await fund(b, creds.secretKey)).status, 404);
    assert.equal((await fund(a, creds.secretKey)).status, 404);
    const last = await fund(b, creds.secretKey);
    assert.equal(last.status, 404);
    assert.equal(int(last.headers, 'RateLimit-Remaining'), 0);
    const over = await fund(a, creds.secretKey);
    assert.equal(over.status, 429);
    assert.equal(over.body.code, 'RATE_LIMITED');
    assert.ok(int(over.headers, 'Retry-After') >= 1);
  } finally {
    await a.stop();
    await b.stop();
    await database.drop();
  }
});
