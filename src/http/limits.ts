// The gate's limits (issues #4 and #23), for requests that carry an authenticated API key:
//   1. a request rate per minute (rate-limiter-flexible, a fixed one-minute window) in the sender's own bucket, so a
//      publishable key, public by design, cannot be turned against the app's users:
//        secret key                       per key
//        publishable key with a session   per user (each signed-in user has a bucket of their own)
//        publishable key, no session      per key and client address (sign-in, and failures before a session)
//      counted before validation (invalid requests are limited too, in their sender's bucket); in process by default, or
//      in PostgreSQL (RATE_LIMIT_STORE=postgres: RateLimiterPostgres on the rate_limit_points table of migration 0003)
//      or Redis (RATE_LIMIT_STORE=redis: RateLimiterRedis) so that every instance shares one count, with a per-process
//      limit as insurance while the store is unreachable (infra/limits/fixedWindow.ts);
//   2. the testnet quota: requests per testnet key per UTC day, only for requests that passed validation, counted by the
//      store's DailyQuotaCounter (domain/limits/quotaCounter.ts): durably in PostgreSQL (domain/limits/dailyQuota.ts) in
//      blocks each process leases and spends in memory (domain/limits/quotaLeases.ts: never over-admitted, no write
//      per request), or with RATE_LIMIT_STORE=redis one atomic Redis call per request (exact; the PostgreSQL leases
//      while Redis is unreachable). Mainnet keys have none (the interface spec shows none).
// Over either: 429 RATE_LIMITED with Retry-After. Every keyed answer carries RateLimit-Limit/-Remaining/-Reset of the
// limit closest to exhaustion.
import { RateLimiterRes } from 'rate-limiter-flexible';
import type { LimitSettings } from '../config';
import type { Deps } from '../domain/deps';
import { createFixedWindowLimiter } from '../infra/limits/fixedWindow';
import { secondsUntilNextUtcMidnight, utcDay } from '../domain/limits/dailyQuota';
import { createDailyQuotaCounter } from '../domain/limits/quotaCounter';
import type { AuthenticatedKey } from '../operations/caller';
import { AppError } from '../domain/errors';

export const DEFAULT_LIMITS: LimitSettings = { perKeyPerMinute: 600, store: 'memory', testnetDailyQuota: 1000 };

/** Who a request counts for: its key, and the signed-in user or the client address. */
export interface RateCaller {
  key: AuthenticatedKey;
  /** The verified session's user (SDK API). */
  userId?: string | undefined;
  ip: string;
}

export interface Limits {
  /** Counts one request in its sender's bucket (before validation); throws RATE_LIMITED over the limit. */
  rate(caller: RateCaller): Promise<Window>;
  /** Counts one valid request of a testnet key against the day's quota; throws RATE_LIMITED past it. None on mainnet. */
  quota(key: AuthenticatedKey): Promise<Window | undefined>;
}

/** The bucket a request's rate counts in (see the header). */
export function rateBucketOf(caller: RateCaller): string {
  if (caller.key.type === 'secret') return `key:${caller.key.keyId}`;
  if (caller.userId !== undefined) return `user:${caller.key.keyId}:${caller.userId}`;
  return `anon:${caller.key.keyId}:${caller.ip}`;
}

export interface Window {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/** RateLimit-* headers of the window closest to exhaustion. */
export function headersOf(...windows: (Window | undefined)[]): Record<string, string> {
  const w = windows.filter((x): x is Window => x !== undefined).reduce((a, b) => (b.remaining < a.remaining ? b : a));
  return {
    'RateLimit-Limit': String(w.limit),
    'RateLimit-Remaining': String(w.remaining),
    'RateLimit-Reset': String(w.resetSeconds),
  };
}

function rateLimited(w: Window, message: string): AppError {
  return new AppError('RATE_LIMITED', { message, headers: { 'Retry-After': String(w.resetSeconds), ...headersOf(w) } });
}

export function createLimits(
  deps: Pick<Deps, 'db' | 'clock' | 'redis'> & Partial<Pick<Deps, 'log'>>,
  settings: LimitSettings = DEFAULT_LIMITS,
): Limits {
  const limiter = createFixedWindowLimiter({ db: deps.db, redis: deps.redis?.client }, settings.store, {
    points: settings.perKeyPerMinute,
    durationSeconds: 60,
    keyPrefix: 'key_minute',
  });
  const counter = createDailyQuotaCounter(deps, settings.store);
  return {
    async rate(caller) {
      try {
        const res = await limiter.consume(rateBucketOf(caller));
        return {
          limit: settings.perKeyPerMinute,
          remaining: res.remainingPoints,
          resetSeconds: Math.max(0, Math.ceil(res.msBeforeNext / 1000)),
        };
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw err;
        const w = {
          limit: settings.perKeyPerMinute,
          remaining: 0,
          resetSeconds: Math.max(1, Math.ceil(err.msBeforeNext / 1000)),
        };
        const whose =
          caller.key.type === 'secret'
            ? 'API key'
            : caller.userId !== undefined
              ? 'user'
              : 'API key and client address';
        throw rateLimited(w, `Too many requests: ${settings.perKeyPerMinute} per minute per ${whose}`);
      }
    },
    async quota(key) {
      if (key.network !== 'testnet') return undefined;
      const now = deps.clock.now();
      const spent = await counter.spend(key.keyId, utcDay(now), settings.testnetDailyQuota);
      const day: Window = {
        limit: settings.testnetDailyQuota,
        remaining: spent?.remaining ?? 0,
        resetSeconds: secondsUntilNextUtcMidnight(now),
      };
      if (spent === undefined)
        throw rateLimited(
          day,
          `The testnet key used its ${settings.testnetDailyQuota} requests of the UTC day; retry after midnight UTC`,
        );
      return day;
    },
  };
}
