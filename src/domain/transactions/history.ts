// A wallet's transaction history as the SDK API serves it (GET /v1/tx/history): newest first on the wallet's
// `tx_history` rows, each joined to its transaction. Offset paging as the interface spec defines it, plus an opaque
// keyset cursor (src/domain/paging/cursor.ts) whose cost does not grow with depth; `total` is the wallet's counter row
// (kept by store.ts in the same transaction as the rows), one primary-key read at any depth.
import type { Knex } from 'knex';
import type { NetworkName } from '../../config';
import { fromStroops } from '../money/amounts';
import { decodeCursor, encodeCursor, invalidCursor } from '../paging/cursor';
import type { TxStatus } from './store';

/** The contract's page size default and maximum (components/parameters/Limit.yaml). */
export const DEFAULT_HISTORY_LIMIT = 20;
export const MAX_HISTORY_LIMIT = 100;

/** One transaction in a wallet's history (the contract's TxHistoryRecord). */
export interface TxHistoryRecord {
  id: string;
  hash: string;
  network: NetworkName;
  status: TxStatus;
  operation: string;
  /** The fee the gas wallet paid (or pays), in XLM; absent while unknown. */
  feeXlm?: string;
  resultCode?: string;
  /** The wallet's own view: "Sent 10 USDC to GA2U...W27N", "Received 10 USDC from GBX4...H4KQ". */
  summary: string;
  createdAt: string;
}

export interface HistoryQuery {
  walletId: string;
  limit: number;
  /** Offset paging; ignored when `cursor` is given. */
  offset: number;
  /** A `nextCursor` this function handed out for the same wallet. */
  cursor?: string;
}

export interface HistoryPage {
  records: TxHistoryRecord[];
  /** The wallet's records over all pages. */
  total: number;
  /** Position of the page's first record. */
  offset: number;
  /** Opens the next page; null on the last one. */
  nextCursor: string | null;
}

/** A joined (tx_history, transactions) row: what a history record is made of. */
export interface HistoryRow {
  transaction_id: string;
  hash: string;
  network: NetworkName;
  status: TxStatus;
  operation: string;
  fee_stroops: string | null;
  result_code: string | null;
  summary: string;
  created_at: Date;
}

/** A row of the page query: the wallet's total and the cursor check beside a history row (all null past the page). */
type PageRow = { total: string | number; cursor_known: boolean } & (
  { [K in keyof HistoryRow]: HistoryRow[K] } | { [K in keyof HistoryRow]: null }
);

/** The history record of a joined (tx_history, transactions) row. */
export function toHistoryRecord(row: HistoryRow): TxHistoryRecord {
  return {
    id: row.transaction_id,
    hash: row.hash,
    network: row.network,
    status: row.status,
    operation: row.operation,
    ...(row.fee_stroops !== null ? { feeXlm: fromStroops(BigInt(row.fee_stroops)) } : {}),
    ...(row.result_code !== null ? { resultCode: row.result_code } : {}),
    summary: row.summary,
    createdAt: row.created_at.toISOString(),
  };
}

/**
 * A page of the wallet's history, newest first (ties broken by transaction id, so pages never overlap or skip).
 * Throws INVALID_CURSOR for a cursor this wallet's history did not hand out.
 */
export async function listWalletHistory(db: Knex, q: HistoryQuery): Promise<HistoryPage> {
  const limit = Math.min(Math.max(1, q.limit), MAX_HISTORY_LIMIT);
  const cursor = q.cursor === undefined ? undefined : decodeCursor(q.cursor, 'tx');
  if (q.cursor !== undefined && !cursor) throw invalidCursor();
  // One statement, one round trip: the total (the counter row), whether the cursor's row is in this wallet's history,
  // and the page. The page is chosen on the history index alone (wallet_id, created_at desc, transaction_id desc: an
  // index-only scan), so an offset skips index entries rather than joined rows, and only the page's rows are joined.
  // Keyset: strictly after the cursor's row in (created_at, transaction_id) order, read from the row itself (exact
  // microsecond timestamps, which a JavaScript Date would round).
  const { rows } = await db.raw<{ rows: PageRow[] }>(
    `with page as (
       select transaction_id, created_at from tx_history
       where wallet_id = :walletId
       ${cursor ? 'and (created_at, transaction_id) < (select c.created_at, c.transaction_id from tx_history c where c.wallet_id = :walletId and c.transaction_id = :afterId)' : ''}
       order by created_at desc, transaction_id desc
       limit :fetch offset :offset
     )
     select w.total, w.cursor_known, r.*
     from (select coalesce((select records from wallet_history_counts where wallet_id = :walletId), 0) as total,
                  ${cursor ? 'exists (select 1 from tx_history where wallet_id = :walletId and transaction_id = :afterId)' : 'true'} as cursor_known) w
     left join lateral (
       select p.transaction_id, p.created_at, h.summary, t.hash, t.network, t.status, t.operation, t.fee_stroops, t.result_code
       from page p
       join tx_history h on h.wallet_id = :walletId and h.transaction_id = p.transaction_id
       join transactions t on t.id = p.transaction_id
     ) r on true
     order by r.created_at desc, r.transaction_id desc`,
    {
      walletId: q.walletId,
      afterId: cursor?.afterId ?? null,
      fetch: limit + 1, // one more than asked tells whether a next page exists
      offset: cursor ? 0 : q.offset,
    },
  );
  const head = rows[0];
  // The cursor's row must be in this wallet's history: a cursor of another wallet is refused, not followed.
  if (!head?.cursor_known) throw invalidCursor();
  const found = rows.filter((r): r is PageRow & HistoryRow => r.transaction_id !== null);
  const offset = cursor ? cursor.offset : q.offset;
  const records = found.slice(0, limit).map(toHistoryRecord);
  const last = records.at(-1);
  return {
    records,
    total: Number(head.total),
    offset,
    nextCursor:
      found.length > limit && last ? encodeCursor({ afterId: last.id, offset: offset + records.length }) : null,
  };
}

/** A transaction of the wallet's history by its hash (for a sponsored one, the fee-bump's or the inner transaction's). */
export async function findWalletTransaction(
  db: Knex,
  input: { walletId: string; network: NetworkName; hash: string },
): Promise<(TxHistoryRecord & { ledger?: number; envelopeXdr?: string }) | undefined> {
  const row: (HistoryRow & { ledger: number | null; envelope_xdr: string | null }) | undefined = await db(
    'tx_history as h',
  )
    .join('transactions as t', 't.id', 'h.transaction_id')
    .where('h.wallet_id', input.walletId)
    .andWhere('t.network', input.network)
    .andWhere((w) => w.where('t.hash', input.hash).orWhere('t.inner_hash', input.hash))
    // A resubmitted inner transaction may sit under several fee-bumps: the newest is the one that counts.
    .orderBy([{ column: 't.created_at', order: 'desc' }])
    .first(
      'h.transaction_id',
      'h.created_at',
      'h.summary',
      't.hash',
      't.network',
      't.status',
      't.operation',
      't.fee_stroops',
      't.result_code',
      't.ledger',
      't.envelope_xdr',
    );
  if (!row) return undefined;
  return {
    ...toHistoryRecord(row),
    ...(row.ledger !== null ? { ledger: row.ledger } : {}),
    ...(row.envelope_xdr !== null ? { envelopeXdr: row.envelope_xdr } : {}),
  };
}
