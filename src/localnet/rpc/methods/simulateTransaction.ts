import { xdr } from '@stellar/stellar-sdk';
import type { MethodHandler } from '../jsonRpc';
import type { RpcContext } from '../context';
import { stringParam } from '../params';

const SOROBAN_OPS = new Set(['invokeHostFunction', 'extendFootprintTtl', 'restoreFootprint']);

/** Go's name for an operation type, as the RPC writes it in its messages: payment -> OperationTypePayment. */
function goOperationTypeName(name: string): string {
  return `OperationType${name.charAt(0).toUpperCase()}${name.slice(1)}`;
}

export const NO_CONTRACT_EXECUTION =
  'localnet does not execute Soroban contracts: simulation is unavailable here. Install contracts with ' +
  'LedgerEngine.installContract to read their instance and code with getLedgerEntries; to run them, use a real Stellar RPC.';

/**
 * Simulation never fails as a JSON-RPC error: the failure is the `error` field of the result, with latestLedger.
 * 1. the RPC's own envelope checks (undecodable, more than one operation, memo, non-Soroban operation)
 * 2. anything that passes would need contract execution, which localnet does not do: say so.
 */
export function simulateTransaction(ctx: Pick<RpcContext, 'history'>): MethodHandler {
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
    return fail(NO_CONTRACT_EXECUTION);
  };
}
