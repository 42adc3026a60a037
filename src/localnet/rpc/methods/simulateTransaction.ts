import { xdr } from '@stellar/stellar-sdk';
import { EngineInputError } from '../../engine';
import type { MethodHandler } from '../jsonRpc';
import type { RpcContext } from '../context';
import { stringParam } from '../params';

const SOROBAN_OPS = new Set(['invokeHostFunction', 'extendFootprintTtl', 'restoreFootprint']);

/** Go's name for an operation type, as the RPC writes it in its messages: payment -> OperationTypePayment. */
function goOperationTypeName(name: string): string {
  return `OperationType${name.charAt(0).toUpperCase()}${name.slice(1)}`;
}

/**
 * Simulation never fails as a JSON-RPC error: the failure is the `error` field of the result, with latestLedger.
 * 1. the RPC's own envelope checks (undecodable, more than one operation, memo, non-Soroban operation)
 * 2. the engine runs the host function in recording mode: uploads and contract creation answer the footprint,
 *    resources, resource fee, auth entries and return value; contract invocation (not executed here) and the
 *    other unmodelled cases answer an `error` saying so.
 */
export function simulateTransaction(ctx: Pick<RpcContext, 'engine' | 'history'>): MethodHandler {
  return (params) => {
    const latestLedger = ctx.history.latest().sequence;
    const fail = (error: string) => ({ error, latestLedger });
    let envelope: xdr.TransactionEnvelope;
    try {
      envelope = xdr.TransactionEnvelope.fromXdr(stringParam(params, 'transaction'), 'base64');
    } catch {
      return fail('Could not unmarshal transaction');
    }
    const tx =
      envelope.type === 'envelopeTypeTxFeeBump'
        ? envelope.feeBump.tx.innerTx.v1.tx
        : envelope.type === 'envelopeTypeTxV0'
          ? envelope.v0.tx
          : envelope.v1.tx;
    const ops = tx.operations;
    if (ops.length !== 1) return fail('Transaction contains more than one operation');
    if (tx.memo.type !== 'memoNone')
      return fail('Transaction contains a memo. Soroban transactions do not support memos.');
    const opName = ops[0]!.body.type;
    if (!SOROBAN_OPS.has(opName))
      return fail(`Transaction contains unsupported operation type: ${goOperationTypeName(opName)}`);
    let simulated;
    try {
      simulated = ctx.engine.simulate(stringParam(params, 'transaction'));
    } catch (err) {
      if (err instanceof EngineInputError) return fail('Could not unmarshal transaction');
      throw err;
    }
    if (!simulated.ok) return fail(simulated.error);
    return {
      transactionData: simulated.transactionDataXdr,
      minResourceFee: simulated.minResourceFee.toString(),
      events: [],
      results: [{ auth: simulated.auth, xdr: simulated.returnValueXdr }],
      latestLedger,
    };
  };
}
