import { xdr } from '@stellar/stellar-sdk';
import type { MethodHandler } from '../jsonRpc';
import type { RpcContext } from '../context';
import { invalidParams, requireBase64Format } from '../params';
import { pageRequest } from './pageRequest';
import type { LedgerRecord } from '../../history/historyStore';

/** stellar-rpc's defaults (max-ledgers-limit, default-ledgers-limit). */
export const DEFAULT_LEDGERS_LIMIT = 50;
export const MAX_LEDGERS_LIMIT = 200;

/** The LedgerHeaderHistoryEntry (hash + header) inside a LedgerCloseMeta, base64, as stellar-rpc's headerXdr. */
function headerOf(metadataXdr: string): string {
  const lcm = xdr.LedgerCloseMeta.schema.decode(new Uint8Array(Buffer.from(metadataXdr, 'base64')));
  const entry = lcm.v === 2 ? lcm.v2.ledgerHeader : lcm.v === 1 ? lcm.v1.ledgerHeader : lcm.v0.ledgerHeader;
  return Buffer.from(xdr.LedgerHeaderHistoryEntry.schema.encode(entry)).toString('base64');
}

/** protocol.LedgerInfo, base64 form. */
interface LedgerInfo {
  hash: string;
  sequence: number;
  ledgerCloseTime: string;
  headerXdr: string;
  metadataXdr: string;
}

function ledgerInfo(l: LedgerRecord): LedgerInfo {
  return {
    hash: l.hash,
    sequence: l.sequence,
    // Go `json:"ledgerCloseTime,string"`
    ledgerCloseTime: String(l.closeTime),
    // A ledger persisted before localnet kept close meta has none to give.
    headerXdr: l.metadataXdr ? headerOf(l.metadataXdr) : '',
    metadataXdr: l.metadataXdr ?? '',
  };
}

/**
 * 1. validate (-32600: startLedger outside the retained range, both startLedger and cursor, limit > 200;
 *    -32602: a cursor that is not a ledger sequence inside the range)
 * 2. start at startLedger, or just after the ledger the cursor names
 * 3. answer up to `limit` ledgers (hash, sequence, close time, LedgerHeaderHistoryEntry, LedgerCloseMeta) with the
 *    last one's sequence as the cursor, as stellar-rpc does.
 */
export function getLedgers(ctx: Pick<RpcContext, 'history'>): MethodHandler {
  return (params) => {
    requireBase64Format(params);
    const {
      startLedger,
      cursor: cursorParam,
      limit: limitParam,
      latest,
      oldest,
    } = pageRequest(params, ctx.history, MAX_LEDGERS_LIMIT);
    const within = (seq: number) => seq >= oldest.sequence && seq <= latest.sequence;

    let start = startLedger;
    if (cursorParam !== '') {
      if (!/^\d+$/.test(cursorParam) || Number(cursorParam) > 0xffffffff)
        throw invalidParams(`strconv.ParseUint: parsing "${cursorParam}": invalid syntax`);
      start = Number(cursorParam) + 1;
      if (!within(start))
        throw invalidParams(
          `cursor ('${cursorParam}') must be between the oldest ledger: ${oldest.sequence} and the latest ledger: ${latest.sequence} for this rpc instance`,
        );
    }
    const limit = limitParam > 0 ? limitParam : DEFAULT_LEDGERS_LIMIT;

    const ledgers: LedgerInfo[] = [];
    for (const l of ctx.history.ledgersFrom(start)) {
      if (ledgers.length >= limit) break;
      ledgers.push(ledgerInfo(l));
    }
    const last = ledgers[ledgers.length - 1];
    return {
      ledgers,
      latestLedger: latest.sequence,
      latestLedgerCloseTime: latest.closeTime,
      oldestLedger: oldest.sequence,
      oldestLedgerCloseTime: oldest.closeTime,
      cursor: last ? String(last.sequence) : cursorParam !== '' ? cursorParam : String(start - 1),
    };
  };
}
