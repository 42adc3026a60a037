import type { MethodHandler } from '../jsonRpc';
import { RpcCode, RpcError } from '../jsonRpc';
import type { RpcContext } from '../context';
import { ledgerRange } from './ledgerRange';

/** Go's time.Duration.String() for whole seconds ("45s", "2m5s", "1h0m3s"), as in the RPC's latency message. */
export function goDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  if (h) return `${h}h${m}m${rest}s`;
  if (m) return `${m}m${rest}s`;
  return `${rest}s`;
}

/** 1. read the ledger range 2. refuse when the latest ledger is too old (interval mode only) 3. answer. */
export function getHealth(ctx: Pick<RpcContext, 'history' | 'settings' | 'nowMs'>): MethodHandler {
  return () => {
    const range = ledgerRange(ctx.history);
    const max = ctx.settings.maxHealthyLedgerLatencyMs;
    if (max !== undefined) {
      const latencyS = ctx.nowMs() / 1000 - ctx.history.latest().closeTime;
      if (latencyS * 1000 > max) {
        throw new RpcError(
          RpcCode.InternalError,
          `latency (${goDuration(latencyS)}) since last known ledger closed is too high (>${goDuration(max / 1000)})`,
        );
      }
    }
    return { status: 'healthy', ...range, ledgerRetentionWindow: ctx.settings.retentionLedgers };
  };
}
