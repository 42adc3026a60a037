import { xdr } from '@stellar/stellar-sdk';
import type { MethodHandler } from '../jsonRpc';
import type { RpcContext } from '../context';
import { invalidParams, requireBase64Format, stringArrayParam } from '../params';

export const MAX_LEDGER_ENTRY_KEYS = 200;

/**
 * 1. validate: at most 200 keys, each a decodable LedgerKey, no TTL keys (-32602, the RPC's messages)
 * 2. read the current state for each 3. answer the entries found, in request order, missing ones omitted.
 */
export function getLedgerEntries(ctx: Pick<RpcContext, 'engine' | 'history'>): MethodHandler {
  return (params) => {
    requireBase64Format(params);
    const keys = stringArrayParam(params, 'keys');
    if (keys.length > MAX_LEDGER_ENTRY_KEYS) {
      throw invalidParams(`key count (${keys.length}) exceeds maximum supported (${MAX_LEDGER_ENTRY_KEYS})`);
    }
    const canonical = keys.map((key, i) => {
      let decoded: xdr.LedgerKey;
      try {
        decoded = xdr.LedgerKey.fromXdr(key, 'base64');
      } catch {
        throw invalidParams(`cannot unmarshal key value ${key} at index ${i}`);
      }
      if (decoded.type === 'ttl') throw invalidParams('ledger ttl entries cannot be queried directly');
      return decoded.toXdr('base64');
    });
    const entries = [];
    for (const key of canonical) {
      const e = ctx.engine.getLedgerEntry(key);
      if (!e) continue;
      entries.push({
        key,
        xdr: e.xdr,
        lastModifiedLedgerSeq: e.lastModifiedLedgerSeq,
        ...(e.liveUntilLedgerSeq !== undefined ? { liveUntilLedgerSeq: e.liveUntilLedgerSeq } : {}),
        extXdr: e.extXdr,
      });
    }
    return { entries, latestLedger: ctx.history.latest().sequence };
  };
}
