import type { MethodHandler } from '../jsonRpc';
import type { RpcContext } from '../context';
import { invalidParams, requireBase64Format } from '../params';
import { pageRequest } from './pageRequest';
import { parseInt64, toidFromBigInt, toidToBigInt, type Toid } from '../../history/toid';
import { transactionDetails, transactionStatus } from './transactionFields';

export const DEFAULT_TRANSACTIONS_LIMIT = 50;
export const MAX_TRANSACTIONS_LIMIT = 200;

/**
 * 1. validate (-32600: startLedger outside the retained range, both startLedger and cursor, limit > 200)
 * 2. start at startLedger, or just after the transaction the cursor names
 * 3. walk the ledgers up to the latest, collecting at most `limit` transactions in application order
 * 4. answer them with the cursor of the last one: (ledger << 32) | (order << 12) | 1, as stellar-rpc does.
 */
export function getTransactions(ctx: Pick<RpcContext, 'history'>): MethodHandler {
  return (params) => {
    requireBase64Format(params);
    const {
      startLedger,
      cursor: cursorParam,
      limit: limitParam,
      latest,
      oldest,
    } = pageRequest(params, ctx.history, MAX_TRANSACTIONS_LIMIT);

    let start = { ledger: startLedger, tx: 1 };
    if (cursorParam !== '') {
      const id = parseInt64(cursorParam);
      if (id === undefined) throw invalidParams(`strconv.ParseInt: parsing "${cursorParam}": invalid syntax`);
      const t = toidFromBigInt(id);
      // The cursor names the last transaction returned; the page starts right after it.
      start = { ledger: t.ledger, tx: t.tx + 1 };
    }
    const limit = limitParam > 0 ? limitParam : DEFAULT_TRANSACTIONS_LIMIT;

    const transactions: Record<string, unknown>[] = [];
    let cursor: Toid = { ledger: 0, tx: 0, op: 0 };
    walk: for (let seq = start.ledger; seq <= latest.sequence; seq++) {
      const ledger = ctx.history.ledger(seq);
      if (!ledger) throw invalidParams(`database does not contain metadata for ledger: ${seq}`);
      cursor = { ledger: seq, tx: 0, op: 1 };
      const from = seq === start.ledger ? start.tx : 1;
      for (let i = from; i <= ledger.transactions.length; i++) {
        const tx = ledger.transactions[i - 1]!;
        cursor = { ledger: seq, tx: i, op: 1 };
        transactions.push({
          status: transactionStatus(tx),
          txHash: tx.hash,
          ...transactionDetails(tx),
          createdAt: ledger.closeTime,
        });
        if (transactions.length >= limit) break walk;
      }
    }
    return {
      transactions,
      latestLedger: latest.sequence,
      latestLedgerCloseTimestamp: latest.closeTime,
      oldestLedger: oldest.sequence,
      oldestLedgerCloseTimestamp: oldest.closeTime,
      cursor: toidToBigInt(cursor).toString(),
    };
  };
}
