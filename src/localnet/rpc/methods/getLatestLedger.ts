import type { MethodHandler } from '../jsonRpc';
import type { RpcContext } from '../context';

/** The engine's latest closed ledger: hash as `id`, header (LedgerHeader) and LedgerCloseMeta as base64 XDR. */
export function getLatestLedger(ctx: Pick<RpcContext, 'engine'>): MethodHandler {
  return () => {
    const l = ctx.engine.latestLedger();
    return {
      id: l.hash,
      protocolVersion: ctx.engine.protocolVersion,
      sequence: l.sequence,
      closeTime: String(l.closeTime),
      headerXdr: l.headerXdr,
      metadataXdr: l.metadataXdr,
    };
  };
}
