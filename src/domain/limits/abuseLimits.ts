// Abuse limits for requests no API key or session pays for (sign-in code sends per IP, verifications per IP and per
// address): a fixed window of `points` per `durationSeconds` per key, with rate-limiter-flexible, in process, in
// PostgreSQL (rate_limit_points of migration 0003, shared with the per-key limit of src/http/limits.ts and told apart by
// each limiter's keyPrefix) or in Redis (RATE_LIMIT_STORE=redis, keys told apart the same way), so that every instance
// shares the count. Over the limit: 429 RATE_LIMITED with Retry-After.
import { createHash } from 'node:crypto';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { LimitSettings } from '../../config';
import type { Deps } from '../deps';
import { AppError } from '../errors';
import { createFixedWindowLimiter } from '../../infra/limits/fixedWindow';

export interface AbuseLimitOptions {
  /** Names the limit (e.g. `email_send_ip`); limiters with the same name share their counts. */
  name: string;
  points: number;
  durationSeconds: number;
}

export interface AbuseLimiter {
  /** Counts one attempt for `key` (an IP, an email address...); throws RATE_LIMITED once the window's points are used. */
  consume(key: string): Promise<void>;
}

/**
 * Keys are stored as SHA-256 digests: an email address is not kept in clear in the limits table, and a key of any
 * length fits the store's varchar(255) column.
 */
function storedKey(key: string): string {
  return createHash('sha256').update(key).digest('base64url');
}

function createLimiter(
  deps: Pick<Deps, 'db' | 'redis'>,
  store: LimitSettings['store'],
  opts: AbuseLimitOptions,
): RateLimiterAbstract {
  if (!/^[a-z0-9_]+$/.test(opts.name))
    throw new Error(`abuse limit name must be lower-case letters, digits and _: ${opts.name}`);
  return createFixedWindowLimiter({ db: deps.db, redis: deps.redis?.client }, store, {
    points: opts.points,
    durationSeconds: opts.durationSeconds,
    keyPrefix: `abuse_${opts.name}`,
  });
}

export function createAbuseLimiter(
  deps: Pick<Deps, 'db' | 'redis'>,
  store: LimitSettings['store'],
  opts: AbuseLimitOptions,
): AbuseLimiter {
  const limiter = createLimiter(deps, store, opts);
  return {
    async consume(key) {
      try {
        await limiter.consume(storedKey(key));
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw err;
        const retryAfter = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
        throw new AppError('RATE_LIMITED', {
          message: `Too many attempts; retry in ${retryAfter} s`,
          headers: { 'Retry-After': String(retryAfter) },
        });
      }
    },
  };
}
