// The counter behind every rate limit of the service (per-key limits in src/http/limits.ts, abuse limits in
// src/domain/limits/abuseLimits.ts), with rate-limiter-flexible.
import type { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { LimitSettings } from '../../config';
import type { Db } from '../db/database';

/** Where shared counts can live: the service's database, and the process's Redis client when there is one. */
export interface LimitStores {
  db: Db;
  redis?: Redis | undefined;
}

/**
 * A fixed-window limiter in the configured store: this process's memory, or a store every instance shares with a
 * memory limiter as insurance, so that a store outage falls back to a per-process limit rather than refusing every
 * request: the service's PostgreSQL (rate_limit_points of migration 0003) or Redis (one key per bucket and window,
 * counted and given its expiry by one Lua call; refused at once while Redis is not connected, so a request never waits
 * for a reconnection). Also used by the abuse limits.
 */
export function createFixedWindowLimiter(
  stores: LimitStores,
  store: LimitSettings['store'],
  window: { points: number; durationSeconds: number; keyPrefix: string },
): RateLimiterAbstract {
  const common = { points: window.points, duration: window.durationSeconds, keyPrefix: window.keyPrefix };
  if (store === 'memory') return new RateLimiterMemory(common);
  if (store === 'redis') {
    if (!stores.redis) throw new Error('RATE_LIMIT_STORE=redis but no Redis client was given (REDIS_URL)');
    return new RateLimiterRedis({
      ...common,
      // An ioredis client: rate-limiter-flexible calls it through its own defineCommand (useRedisPackage is for
      // node-redis only, and it tells ioredis apart by the client's class, `Redis`).
      storeClient: stores.redis,
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory(common),
    });
  }
  return new RateLimiterPostgres({
    ...common,
    storeClient: stores.db,
    storeType: 'knex',
    tableName: 'rate_limit_points',
    tableCreated: true, // migration 0003
    insuranceLimiter: new RateLimiterMemory(common),
  });
}
