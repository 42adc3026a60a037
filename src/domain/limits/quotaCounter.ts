// Where the testnet quota is counted, chosen by RATE_LIMIT_STORE: in PostgreSQL through leased blocks (QuotaLeases,
// quotaLeases.ts) for `memory` and `postgres`, or in Redis with one atomic call per request (RedisDailyQuota,
// infra/limits/redisDailyQuota.ts) for `redis`: exact, and no write to PostgreSQL per request.
//
// While Redis cannot be reached the quota is counted by the PostgreSQL leases instead, request by request, and by
// Redis again as soon as it answers: refusing every testnet request because a cache is down would turn a Redis outage
// into an outage of the testnet API, and admitting every request would drop the quota. The price, said plainly:
// "never over-admitted" then holds per store, not across both. The leases count from what PostgreSQL holds for the day
// (nothing, when Redis counted all of it), so during and after an outage a key can be admitted up to its quota in
// each store: at most twice the quota that day. And a Redis call that timed out may have been counted in Redis while
// its request was admitted (and counted) by the leases. Both only ever err towards admitting, only during an outage.
import type { Logger } from 'pino';
import type { LimitSettings } from '../../config';
import { RedisDailyQuota } from '../../infra/limits/redisDailyQuota';
import type { Deps } from '../deps';
import { QuotaLeases, type QuotaSpent } from './quotaLeases';

/** Counts one request of a testnet key against its UTC day's quota. */
export interface DailyQuotaCounter {
  /** Spends one request of `keyId`'s `quota` on `day` (`YYYY-MM-DD`); undefined when the day's quota is used up. */
  spend(keyId: string, day: string, quota: number): Promise<QuotaSpent | undefined>;
}

/** The counter of the configured store (see the header). */
export function createDailyQuotaCounter(
  deps: Pick<Deps, 'db' | 'redis'> & { log?: Pick<Logger, 'warn' | 'info'> | undefined },
  store: LimitSettings['store'],
): DailyQuotaCounter {
  const leases: DailyQuotaCounter = new QuotaLeases(deps.db);
  if (store !== 'redis') return leases;
  if (!deps.redis) throw new Error('RATE_LIMIT_STORE=redis but no Redis connection was given (REDIS_URL)');
  return new RedisOrLeases(new RedisDailyQuota(deps.redis.client), leases, deps.log);
}

/** Redis while it answers, the PostgreSQL leases while it does not (see the header). */
class RedisOrLeases implements DailyQuotaCounter {
  /** Whether the last call fell back: the change is logged, not every request. */
  private fallingBack = false;

  constructor(
    private readonly redis: DailyQuotaCounter,
    private readonly leases: DailyQuotaCounter,
    private readonly log: Pick<Logger, 'warn' | 'info'> | undefined,
  ) {}

  async spend(keyId: string, day: string, quota: number): Promise<QuotaSpent | undefined> {
    let counted: QuotaSpent | undefined;
    try {
      counted = await this.redis.spend(keyId, day, quota);
    } catch (err) {
      if (!this.fallingBack)
        this.log?.warn(
          { err: { message: err instanceof Error ? err.message : String(err) } },
          'testnet quota: Redis unreachable, counting in PostgreSQL until it answers',
        );
      this.fallingBack = true;
      return this.leases.spend(keyId, day, quota);
    }
    if (this.fallingBack) this.log?.info('testnet quota: counted in Redis again');
    this.fallingBack = false;
    return counted;
  }
}
