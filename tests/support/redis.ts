// Redis for the tests of RATE_LIMIT_STORE=redis. The project needs no Redis: these tests run when REDIS_URL is set
// (scripts/test.ts sets it with CI=true, to the machine's Redis) and are skipped, saying so, otherwise. Each test file
// writes under a fresh key prefix and deletes only its own keys, so runs on one Redis never meet.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/** The Redis the tests may use (REDIS_URL), if any. */
export const testRedisUrl: string | undefined = process.env.REDIS_URL || undefined;

/** `skip` for node:test: false with a Redis, else the reason shown in the report. */
export const skipWithoutRedis: string | false = testRedisUrl
  ? false
  : 'REDIS_URL is not set: the Redis tests need one (e.g. REDIS_URL=redis://127.0.0.1:6379/5; CI=true npm test sets it)';

/** A key prefix no other run uses (REDIS_KEY_PREFIX). */
export function freshKeyPrefix(): string {
  return `onboard_t_${randomBytes(6).toString('hex')}:`;
}

/** A client of the test Redis without a key prefix (it sees every key under its full name). */
export function rawRedis(): Redis {
  if (!testRedisUrl) throw new Error('REDIS_URL is not set');
  return new Redis(testRedisUrl, { maxRetriesPerRequest: 1 });
}

/** Deletes every key under `prefix` (and nothing else); answers how many. */
export async function dropKeys(prefix: string): Promise<number> {
  if (!/^[A-Za-z0-9_:]+$/.test(prefix)) throw new Error(`not a test prefix: ${prefix}`);
  const redis = rawRedis();
  let dropped = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length > 0) dropped += await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return dropped;
}
