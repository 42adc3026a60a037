import { EngineInputError } from '../../engine';
import type { MethodHandler } from '../jsonRpc';
import type { RpcContext } from '../context';
import { invalidParams, requireBase64Format, stringParam } from '../params';

/**
 * 1. hand the envelope to the engine's submission checks (an undecodable one is -32602 "invalid_xdr")
 * 2. answer PENDING / DUPLICATE / TRY_AGAIN_LATER, or ERROR with the TransactionResult the checks produced.
 * The transaction is applied at the next ledger close; clients poll getTransaction.
 */
export function sendTransaction(ctx: Pick<RpcContext, 'engine' | 'history'>): MethodHandler {
  return (params) => {
    requireBase64Format(params);
    const envelope = stringParam(params, 'transaction');
    let submitted;
    try {
      submitted = ctx.engine.submit(envelope);
    } catch (err) {
      if (err instanceof EngineInputError) throw invalidParams('invalid_xdr');
      throw err;
    }
    const latest = ctx.history.latest();
    return {
      ...(submitted.status === 'ERROR' && submitted.errorResultXdr ? { errorResultXdr: submitted.errorResultXdr } : {}),
      status: submitted.status,
      hash: submitted.hash,
      latestLedger: latest.sequence,
      latestLedgerCloseTime: String(latest.closeTime),
    };
  };
}
