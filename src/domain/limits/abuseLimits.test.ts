// Abuse limits with every store (in process, and PostgreSQL or Redis shared by instances; Redis only when REDIS_URL is
// set) on a real database: the points per window, RATE_LIMITED with Retry-After, independent keys and names, the
// window's end, atomicity under concurrency, and keys kept as digests.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { AppError } from '../errors';
import { useMigratedDatabase } from '../../../tests/support/database';
import { dropKeys, freshKeyPrefix, skipWithoutRedis, testRedisUrl } from '../../../tests/support/redis';
import { createRedisConnection, type RedisConnection } from '../../infra/redis/redis';
import { createAbuseLimiter, type AbuseLimiter } from './abuseLimits';

const db = useMigratedDatabase();

/** Whether `consume` passed, or the RATE_LIMITED error it threw (anything else fails the test). */
async function attempt(limiter: AbuseLimiter, key: string): Promise<'ok' | AppError> {
  try {
    await limiter.consume(key);
    return 'ok';
  } catch (err) {
    assert.ok(err instanceof AppError && err.code === 'RATE_LIMITED', `expected RATE_LIMITED, got ${String(err)}`);
    return err;
  }
}

let n = 0;
const uniqueName = (base: string) => `${base}_${++n}`;

for (const store of ['memory', 'postgres', 'redis'] as const) {
  describe(`abuse limiter (${store} store)`, { skip: store === 'redis' && skipWithoutRedis }, () => {
    let redis: RedisConnection | undefined;
    if (store === 'redis') {
      const keyPrefix = freshKeyPrefix();
      before(async () => {
        redis = createRedisConnection({ url: testRedisUrl!, keyPrefix }, pino({ level: 'silent' }));
        assert.ok(await redis.whenReady(5000), 'the test Redis answers');
      });
      after(async () => {
        await redis?.close();
        await dropKeys(keyPrefix);
      });
    }
    const limiter = (points: number, durationSeconds: number, name = uniqueName('t')) =>
      createAbuseLimiter({ db, ...(redis ? { redis } : {}) }, store, { name, points, durationSeconds });

    test('allows `points` attempts per window, then answers 429 RATE_LIMITED with Retry-After within the window', async () => {
      const l = limiter(3, 60);
      for (let i = 0; i < 3; i++) assert.equal(await attempt(l, '203.0.113.7'), 'ok');
      const refused = await attempt(l, '203.0.113.7');
      assert.notEqual(refused, 'ok');
      const err = refused as AppError;
      assert.equal(err.status, 429);
      const retryAfter = Number(err.headers['Retry-After']);
      assert.ok(
        Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60,
        `Retry-After ${err.headers['Retry-After']}`,
      );
    });

    test('keys are counted apart, and so are limiters of different names on the same key', async () => {
      const a = limiter(1, 60);
      const b = limiter(1, 60);
      assert.equal(await attempt(a, 'ada@example.com'), 'ok');
      assert.notEqual(await attempt(a, 'ada@example.com'), 'ok');
      assert.equal(await attempt(a, 'bob@example.com'), 'ok');
      assert.equal(await attempt(b, 'ada@example.com'), 'ok');
    });

    test('the window ends after durationSeconds', async () => {
      const l = limiter(1, 1);
      assert.equal(await attempt(l, 'k'), 'ok');
      assert.notEqual(await attempt(l, 'k'), 'ok');
      await sleep(1100);
      assert.equal(await attempt(l, 'k'), 'ok');
    });

    test('30 concurrent attempts against 10 points: exactly 10 pass', async () => {
      const l = limiter(10, 60);
      const results = await Promise.all(Array.from({ length: 30 }, () => attempt(l, '198.51.100.1')));
      assert.equal(results.filter((r) => r === 'ok').length, 10);
    });
  });
}

describe('abuse limiter, PostgreSQL store specifics', () => {
  test('two instances (two service processes) with the same name share one count', async () => {
    const name = uniqueName('shared');
    const first = createAbuseLimiter({ db }, 'postgres', { name, points: 2, durationSeconds: 60 });
    const second = createAbuseLimiter({ db }, 'postgres', { name, points: 2, durationSeconds: 60 });
    assert.equal(await attempt(first, '192.0.2.1'), 'ok');
    assert.equal(await attempt(second, '192.0.2.1'), 'ok');
    assert.notEqual(await attempt(first, '192.0.2.1'), 'ok');
    assert.notEqual(await attempt(second, '192.0.2.1'), 'ok');
  });

  test('keys are stored as digests: no address in clear, and a 320-character address fits', async () => {
    const l = createAbuseLimiter({ db }, 'postgres', { name: uniqueName('digest'), points: 1, durationSeconds: 60 });
    const longAddress = `${'a'.repeat(64)}@${'b'.repeat(251)}.com`;
    assert.equal(longAddress.length, 320);
    assert.equal(await attempt(l, longAddress), 'ok');
    assert.notEqual(await attempt(l, longAddress), 'ok');
    assert.equal(await attempt(l, 'grace@example.com'), 'ok');
    const keys = (await db('rate_limit_points').select<{ key: string }[]>('key')).map((r) => r.key);
    assert.ok(keys.length >= 2);
    for (const key of keys) {
      assert.ok(!key.includes('@'), `stored key ${key} holds an address`);
    }
  });

  test('a name that could clash with another prefix is refused', () => {
    assert.throws(
      () => createAbuseLimiter({ db }, 'postgres', { name: 'Send:IP', points: 1, durationSeconds: 60 }),
      /abuse limit name/,
    );
  });
});
