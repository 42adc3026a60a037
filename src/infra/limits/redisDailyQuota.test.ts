// The testnet quota's Lua counting on a real Redis (skipped without REDIS_URL): it refuses at the quota and counts no
// refusal, sets the two-day expiry on first use, starts every UTC day on a new key, stays exact under concurrent calls
// from several connections (processes), writes only under the configured prefix, and refuses to be called while Redis
// is not connected (nothing counted, so the caller may fall back).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { dropKeys, freshKeyPrefix, rawRedis, skipWithoutRedis, testRedisUrl } from '../../../tests/support/redis';
import { DAY_KEY_TTL_SECONDS, dayQuotaKey, RedisDailyQuota, RedisNotConnectedError } from './redisDailyQuota';

describe('RedisDailyQuota', { skip: skipWithoutRedis }, () => {
  const prefix = freshKeyPrefix();
  const clients: Redis[] = [];
  let raw: Redis;
  /** A connection of its own, as another process would have, with the service's key prefix. */
  const connect = async (): Promise<Redis> => {
    const client = new Redis(testRedisUrl!, { keyPrefix: prefix, maxRetriesPerRequest: 1 });
    clients.push(client);
    if (client.status !== 'ready') await new Promise((resolve) => client.once('ready', resolve));
    return client;
  };
  let quota: RedisDailyQuota;
  let n = 0;
  const newKeyId = () => `key_test${++n}`;

  before(async () => {
    quota = new RedisDailyQuota(await connect());
    raw = rawRedis();
  });
  after(async () => {
    for (const c of clients) c.disconnect();
    raw?.disconnect();
    await dropKeys(prefix);
  });

  test('answers what is left after each request, refuses at the quota, and counts no refusal', async () => {
    const keyId = newKeyId();
    const answers: ({ remaining: number } | undefined)[] = [];
    for (let i = 0; i < 7; i++) answers.push(await quota.spend(keyId, '2030-06-15', 5));
    const left = (remaining: number) => ({ remaining });
    assert.deepEqual(answers, [left(4), left(3), left(2), left(1), left(0), undefined, undefined]);
    assert.equal(await raw.get(`${prefix}${dayQuotaKey(keyId, '2030-06-15')}`), '5');
  });

  test('the day key expires two days after its first use (and a key found without an expiry gets one)', async () => {
    const keyId = newKeyId();
    await quota.spend(keyId, '2030-06-15', 10);
    const ttl = await raw.ttl(`${prefix}${dayQuotaKey(keyId, '2030-06-15')}`);
    assert.ok(ttl > DAY_KEY_TTL_SECONDS - 10 && ttl <= DAY_KEY_TTL_SECONDS, `TTL ${ttl}`);
    assert.equal(DAY_KEY_TTL_SECONDS, 172_800);
    // Later requests do not push the expiry on.
    await raw.expire(`${prefix}${dayQuotaKey(keyId, '2030-06-15')}`, 1000);
    await quota.spend(keyId, '2030-06-15', 10);
    assert.ok((await raw.ttl(`${prefix}${dayQuotaKey(keyId, '2030-06-15')}`)) <= 1000);
    const stray = newKeyId();
    await raw.set(`${prefix}${dayQuotaKey(stray, '2030-06-15')}`, '3');
    assert.deepEqual(await quota.spend(stray, '2030-06-15', 10), { remaining: 6 });
    assert.ok((await raw.ttl(`${prefix}${dayQuotaKey(stray, '2030-06-15')}`)) > DAY_KEY_TTL_SECONDS - 10);
  });

  test('a new UTC day is a new key: the quota used up yesterday does not count today', async () => {
    const keyId = newKeyId();
    for (let i = 0; i < 3; i++) assert.ok(await quota.spend(keyId, '2030-06-15', 3));
    assert.equal(await quota.spend(keyId, '2030-06-15', 3), undefined);
    assert.deepEqual(await quota.spend(keyId, '2030-06-16', 3), { remaining: 2 });
    assert.equal(await raw.get(`${prefix}${dayQuotaKey(keyId, '2030-06-15')}`), '3');
    assert.equal(await raw.get(`${prefix}${dayQuotaKey(keyId, '2030-06-16')}`), '1');
    // Other keys are counted apart.
    assert.deepEqual(await quota.spend(newKeyId(), '2030-06-15', 3), { remaining: 2 });
  });

  test('three connections, 450 calls at once against a quota of 300: exactly 300 admitted', async () => {
    const keyId = newKeyId();
    const counters = [quota, new RedisDailyQuota(await connect()), new RedisDailyQuota(await connect())];
    const answers = await Promise.all(
      Array.from({ length: 450 }, (_, i) => counters[i % 3]!.spend(keyId, '2030-06-15', 300)),
    );
    assert.equal(answers.filter((a) => a !== undefined).length, 300);
    // Every remaining count from 299 down to 0 was answered exactly once: each call saw its own count.
    const remaining = answers.flatMap((a) => (a ? [a.remaining] : [])).sort((x, y) => x - y);
    assert.deepEqual(
      remaining,
      Array.from({ length: 300 }, (_, i) => i),
    );
    assert.equal(await raw.get(`${prefix}${dayQuotaKey(keyId, '2030-06-15')}`), '300');
  });

  test('it writes only under the prefix', async () => {
    const keyId = newKeyId();
    await quota.spend(keyId, '2030-06-15', 3);
    assert.deepEqual(await raw.keys(`*${keyId}*`), [`${prefix}${dayQuotaKey(keyId, '2030-06-15')}`]);
  });

  test('not connected: RedisNotConnectedError at once, nothing counted', async () => {
    const client = new Redis(testRedisUrl!, { keyPrefix: prefix, lazyConnect: true, enableOfflineQueue: false });
    clients.push(client);
    const keyId = newKeyId();
    await assert.rejects(new RedisDailyQuota(client).spend(keyId, '2030-06-15', 3), RedisNotConnectedError);
    assert.equal(await raw.exists(`${prefix}${dayQuotaKey(keyId, '2030-06-15')}`), 0);
  });
});
