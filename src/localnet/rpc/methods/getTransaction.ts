import type { MethodHandler } from '../jsonRpc';
import type { RpcContext } from '../context';
import { invalidParams, requireBase64Format, stringParam } from '../params';
import { ledgerRange } from './ledgerRange';
import { transactionDetails, transactionStatus } from './transactionFields';

/**
 * 1. validate the hash (64 hex characters, else -32602 with the RPC's messages)
 * 2. look it up in the retained history (a fee-bump answers to its outer and its inner hash)
 * 3. NOT_FOUND with the ledger range, or SUCCESS/FAILED with the envelope, result, meta and events.
 */
export function getTransaction(ctx: Pick<RpcContext, 'history'>): MethodHandler {
  return (params) => {
    requireBase64Format(params);
    const hash = stringParam(params, 'hash');
    if (hash.length !== 64) throw invalidParams(`unexpected hash length (${hash.length})`);
    const bad = hash.search(/[^0-9a-fA-F]/);
    if (bad >= 0) {
      const ch = hash[bad]!;
      const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      throw invalidParams(`incorrect hash: encoding/hex: invalid byte: U+${code} '${ch}'`);
    }
    const found = ctx.history.findTransaction(hash);
    const range = ledgerRange(ctx.history);
    // Go serialises the zero values of the absent details too; the SDK ignores them.
    if (!found)
      return {
        ...range,
        status: 'NOT_FOUND',
        txHash: hash,
        applicationOrder: 0,
        feeBump: false,
        events: {},
        ledger: 0,
        createdAt: '0',
      };
    return {
      ...range,
      status: transactionStatus(found.tx),
      txHash: hash,
      ...transactionDetails(found.tx),
      createdAt: String(found.ledger.closeTime),
    };
  };
}
