// The counter behind every rate limit of the service (per-key limits in src/http/limits.ts, abuse limits in
// src/domain/limits/abuseLimits.ts), with rate-limiter-flexible.
import { RateLimiterMemory, RateLimiterPostgres, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { LimitSettings } from '../../config';
import type { Db } from '../db/database';

/**
 * A fixed-window limiter in the configured store: this process's memory, or the service's PostgreSQL
 * (rate_limit_points of migration 0003, shared by every instance) with a memory limiter as insurance, so a database
 * hiccup falls back to a per-process limit rather than refusing every request. Also used by the abuse limits.
 */
export function createFixedWindowLimiter(
  db: Db,
  store: LimitSettings['store'],
  window: { points: number; durationSeconds: number; keyPrefix: string },
): RateLimiterAbstract {
  const common = { points: window.points, duration: window.durationSeconds, keyPrefix: window.keyPrefix };
  if (store === 'memory') return new RateLimiterMemory(common);
  return new RateLimiterPostgres({
    ...common,
    storeClient: db,
    storeType: 'knex',
    tableName: 'rate_limit_points',
    tableCreated: true, // migration 0003
    insuranceLimiter: new RateLimiterMemory(common),
  });
}
