import type { Deps } from '../../domain/deps';
import { AppError } from '../../domain/errors';
import { followerLag } from '../../domain/transactions/ledgerFollower';
import type { Handler } from '../types';

type Check = { status: 'up' | 'down' | 'not_configured'; latencyMs?: number; detail?: string; lagLedgers?: number };

const NETWORKS = ['testnet', 'mainnet'] as const;
/** Checks reported but never failing readiness (see the handler's comment). */
const INFORMATIONAL = new Set(['redis']);

/**
 * Readiness: 0. a process shutting down is down at once 1. ping the database, and Redis when the limits count in it
 * (RATE_LIMIT_STORE=redis) 2. probe each configured Stellar RPC, and tell how far the ledger follower is behind it
 * 3. 200 when all are up, else 503 with the same check list. A network without an RPC URL is `not_configured` and does
 * not fail readiness; the follower's lag is information, never a reason to be unready. So is Redis: without it the API
 * still answers (the limits fall back to each process), and every instance shares the one Redis, so failing readiness
 * on it would take them all out of a load balancer at once.
 */
export function getReadiness(
  deps: Pick<Deps, 'db' | 'stellarHealth' | 'shuttingDown' | 'redis'>,
): Handler<'getReadiness'> {
  return async () => {
    const checks: Record<string, Check> = {};
    const redis = deps.redis;
    // A process that is shutting down still answers the requests it has, but takes no new ones from a load balancer.
    if (deps.shuttingDown?.()) checks['process'] = { status: 'down', detail: 'shutting down' };
    const timed = async (name: string, probe: () => Promise<{ ok: boolean; detail?: string }>) => {
      const started = performance.now();
      try {
        const { ok, detail } = await probe();
        checks[name] = {
          status: ok ? 'up' : 'down',
          latencyMs: Math.round(performance.now() - started),
          ...(detail ? { detail: detail.slice(0, 500) } : {}),
        };
      } catch (err) {
        // The contract bounds `detail` (500 characters): an error's message may be longer.
        checks[name] = { status: 'down', detail: (err instanceof Error ? err.message : String(err)).slice(0, 500) };
      }
    };
    await Promise.all([
      timed('database', async () => {
        await deps.db.raw('select 1');
        return { ok: true };
      }),
      ...(redis ? [timed('redis', () => redis.health())] : []),
      ...NETWORKS.map((network) => {
        const probe = deps.stellarHealth[network];
        if (!probe) {
          checks[`stellar:${network}`] = { status: 'not_configured' };
          return Promise.resolve();
        }
        return timed(`stellar:${network}`, async () => {
          const health = await probe();
          if (health.healthy && health.latestLedger !== undefined) {
            const lag = await followerLag(deps.db, network, health.latestLedger);
            if (lag !== undefined)
              checks[`ledgerFollower:${network}`] = { status: 'up', lagLedgers: lag, detail: `${lag} ledgers behind` };
          }
          return {
            ok: health.healthy,
            detail: health.healthy ? `latest ledger ${health.latestLedger}` : health.detail,
          };
        });
      }),
    ]);
    const down = Object.entries(checks)
      .filter(([name, c]) => c.status === 'down' && !INFORMATIONAL.has(name))
      .map(([name]) => name);
    if (down.length > 0) {
      throw new AppError('SERVICE_UNAVAILABLE', {
        message: `Not ready: ${down.join(', ')}`,
        details: { checks },
        headers: { 'Retry-After': '5' },
      });
    }
    return { content: { status: 'ready', checks } };
  };
}
