// The gate's limits (issue #4), applied to a request once its API key is authenticated (unauthenticated garbage costs
// nothing):
//   1. a per-key request rate limit (rate-limiter-flexible, a fixed one-minute window): in-process by default, or in
//      PostgreSQL (RATE_LIMIT_STORE=postgres, the library's RateLimiterPostgres on the service's knex pool and the
//      rate_limit_points table of migration 0003) so that every instance shares one limit;
//   2. the testnet quota: requests per testnet key per UTC day, counted durably (domain/limits/dailyQuota.ts). Mainnet
//      keys have none (the interface spec shows none).
// Over either: 429 RATE_LIMITED with Retry-After. Every keyed answer carries RateLimit-Limit/-Remaining/-Reset of the
// limit closest to exhaustion.
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { LimitSettings } from '../config';
import type { Deps } from '../deps';
import { consumeDailyQuota, secondsUntilNextUtcMidnight, utcDay } from '../domain/limits/dailyQuota';
import type { AuthenticatedKey } from './authenticate';
import { AppError } from '../domain/errors';

export const DEFAULT_LIMITS: LimitSettings = { perKeyPerMinute: 600, store: 'memory', testnetDailyQuota: 1000 };

/** Counts one request of an authenticated key; returns the RateLimit-* headers, or throws RATE_LIMITED. */
export type ApplyLimits = (key: AuthenticatedKey) => Promise<Record<string, string>>;

interface Window {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

function headersOf(w: Window): Record<string, string> {
  return { 'RateLimit-Limit': String(w.limit), 'RateLimit-Remaining': String(w.remaining), 'RateLimit-Reset': String(w.resetSeconds) };
}

function rateLimited(w: Window, message: string): AppError {
  return new AppError('RATE_LIMITED', { message, headers: { 'Retry-After': String(w.resetSeconds), ...headersOf(w) } });
}

/**
 * A fixed-window limiter in the configured store: this process's memory, or the service's PostgreSQL
 * (rate_limit_points of migration 0003, shared by every instance) with a memory limiter as insurance, so a database
 * hiccup falls back to a per-process limit rather than refusing every request. Also used by the abuse limits.
 */
export function createFixedWindowLimiter(
  deps: Pick<Deps, 'db'>,
  store: LimitSettings['store'],
  window: { points: number; durationSeconds: number; keyPrefix: string },
): RateLimiterAbstract {
  const common = { points: window.points, duration: window.durationSeconds, keyPrefix: window.keyPrefix };
  if (store === 'memory') return new RateLimiterMemory(common);
  return new RateLimiterPostgres({
    ...common,
    storeClient: deps.db,
    storeType: 'knex',
    tableName: 'rate_limit_points',
    tableCreated: true, // migration 0003
    insuranceLimiter: new RateLimiterMemory(common),
  });
}

export function createLimits(deps: Pick<Deps, 'db' | 'clock'>, settings: LimitSettings = DEFAULT_LIMITS): ApplyLimits {
  const limiter = createFixedWindowLimiter(deps, settings.store, { points: settings.perKeyPerMinute, durationSeconds: 60, keyPrefix: 'key_minute' });
  return async (key) => {
    // 1. the per-minute rate (a refused request does not count against the day's quota)
    let res: RateLimiterRes;
    try {
      res = await limiter.consume(key.keyId);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      const w = { limit: settings.perKeyPerMinute, remaining: 0, resetSeconds: Math.max(1, Math.ceil(err.msBeforeNext / 1000)) };
      throw rateLimited(w, `Too many requests: ${settings.perKeyPerMinute} per minute per API key`);
    }
    const minute: Window = { limit: settings.perKeyPerMinute, remaining: res.remainingPoints, resetSeconds: Math.max(0, Math.ceil(res.msBeforeNext / 1000)) };
    if (key.network !== 'testnet') return headersOf(minute);
    // 2. the testnet quota of the UTC day
    const now = deps.clock.now();
    const untilMidnight = secondsUntilNextUtcMidnight(now);
    const count = await consumeDailyQuota(deps.db, key.keyId, utcDay(now), settings.testnetDailyQuota);
    const day: Window = { limit: settings.testnetDailyQuota, remaining: count === undefined ? 0 : settings.testnetDailyQuota - count, resetSeconds: untilMidnight };
    if (count === undefined) throw rateLimited(day, `The testnet key used its ${settings.testnetDailyQuota} requests of the UTC day; retry after midnight UTC`);
    return headersOf(day.remaining < minute.remaining ? day : minute);
  };
}
