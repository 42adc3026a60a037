// The testnet quota counted in Redis (RATE_LIMIT_STORE=redis): one key per API key and UTC day, and one atomic call per
// request (a Lua script runs alone on the server) that counts the request only while the count stays within the quota.
// So the count is exact across any number of processes: never over-admitted, never under-admitted (nothing is leased,
// so nothing is held unspent), and no write to PostgreSQL. It has the shape of the domain's DailyQuotaCounter
// (src/domain/limits/quotaCounter.ts), which chooses it and falls back to the PostgreSQL leases while Redis is down.
import type { Redis } from 'ioredis';

/** A day's key outlives its day (its last requests near midnight UTC in any zone), then Redis drops it. */
export const DAY_KEY_TTL_SECONDS = 2 * 24 * 3600;

/**
 * KEYS[1] the key's counter of the day, ARGV[1] the quota, ARGV[2] the key's lifetime in seconds. Returns the count
 * including this request, or 0 when the quota was used up (nothing is counted then). The expiry is set on first use
 * (and on a counter found without one).
 */
const SPEND_SCRIPT = `
local quota = tonumber(ARGV[1])
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count >= quota then return 0 end
count = redis.call('INCR', KEYS[1])
if count == 1 or redis.call('TTL', KEYS[1]) == -1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return count
`;

const COMMAND = 'onboardSpendDayQuota';

interface QuotaCommand {
  [COMMAND](key: string, quota: number, ttlSeconds: number): Promise<number>;
}

/** The Redis key (before the client's prefix) of `keyId`'s count on `day` (`YYYY-MM-DD`). */
export function dayQuotaKey(keyId: string, day: string): string {
  return `quota_day:${keyId}:${day}`;
}

/** Thrown when the call could not be made (not connected): the caller falls back, nothing was counted. */
export class RedisNotConnectedError extends Error {}

export class RedisDailyQuota {
  private readonly redis: Redis & QuotaCommand;

  constructor(redis: Redis) {
    // EVALSHA with the script sent again when the server does not know it (after a restart): ioredis defineCommand.
    if (!(COMMAND in redis)) redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: SPEND_SCRIPT });
    this.redis = redis as Redis & QuotaCommand;
  }

  /**
   * Counts one request of `keyId` on `day`: what is left of the quota after it, or undefined when the quota was used
   * up. Throws when Redis cannot be asked (RedisNotConnectedError: nothing counted) or does not answer in time (then
   * the request may or may not have been counted).
   */
  async spend(keyId: string, day: string, quota: number): Promise<{ remaining: number } | undefined> {
    if (this.redis.status !== 'ready')
      throw new RedisNotConnectedError(`Redis is not connected (${this.redis.status})`);
    const count = Number(await this.redis[COMMAND](dayQuotaKey(keyId, day), quota, DAY_KEY_TTL_SECONDS));
    if (!Number.isInteger(count)) throw new Error(`the quota script answered ${String(count).slice(0, 50)}`);
    if (count === 0) return undefined;
    return { remaining: Math.max(0, quota - count) };
  }
}
