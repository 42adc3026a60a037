import type { MethodHandler } from '../jsonRpc';
import type { RpcContext } from '../context';

/** Inclusion-fee distributions of the recent ledgers (see history/feeStats.ts). */
export function getFeeStats(ctx: Pick<RpcContext, 'history' | 'feeStats'>): MethodHandler {
  return () => ({ ...ctx.feeStats.current(), latestLedger: ctx.history.latest().sequence });
}
