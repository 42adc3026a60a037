import type { Deps } from '../../deps';
import { AppError } from '../../domain/errors';
import type { Handler } from '../types';

type Check = { status: 'up' | 'down' | 'not_configured'; latencyMs?: number; detail?: string };

const NETWORKS = ['testnet', 'mainnet'] as const;

/**
 * Readiness: 1. ping the database 2. probe each configured Stellar RPC 3. 200 when all are up, else 503 with the
 * same check list. A network without an RPC URL is `not_configured` and does not fail readiness.
 */
export function getReadiness(deps: Pick<Deps, 'db' | 'stellarHealth'>): Handler<'getReadiness'> {
  return async () => {
    const checks: Record<string, Check> = {};
    const timed = async (name: string, probe: () => Promise<{ ok: boolean; detail?: string }>) => {
      const started = performance.now();
      try {
        const { ok, detail } = await probe();
        checks[name] = { status: ok ? 'up' : 'down', latencyMs: Math.round(performance.now() - started), ...(detail ? { detail } : {}) };
      } catch (err) {
        checks[name] = { status: 'down', detail: err instanceof Error ? err.message : String(err) };
      }
    };
    await Promise.all([
      timed('database', async () => {
        await deps.db.raw('select 1');
        return { ok: true };
      }),
      ...NETWORKS.map((network) => {
        const probe = deps.stellarHealth[network];
        if (!probe) {
          checks[`stellar:${network}`] = { status: 'not_configured' };
          return Promise.resolve();
        }
        return timed(`stellar:${network}`, async () => {
          const health = await probe();
          return { ok: health.healthy, detail: health.healthy ? `latest ledger ${health.latestLedger}` : health.detail };
        });
      }),
    ]);
    const down = Object.entries(checks).filter(([, c]) => c.status === 'down').map(([name]) => name);
    if (down.length > 0) {
      throw new AppError('SERVICE_UNAVAILABLE', { message: `Not ready: ${down.join(', ')}`, details: { checks }, headers: { 'Retry-After': '5' } });
    }
    return { content: { status: 'ready', checks } };
  };
}
