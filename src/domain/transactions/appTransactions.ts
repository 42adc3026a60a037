// Every transaction of an app as the Dashboard's Monitor lists and exports it (GET /api/v1/apps/{appId}/transactions):
// newest first on the `transactions_app_recent` index (app_id, created_at desc, id desc), with filters, offset paging
// and the opaque keyset cursor of src/domain/paging/cursor.ts, or as an RFC 4180 CSV of up to 10,000 rows.
//
// `feeSponsoredXlm` is what the app's gas wallet paid, so a fee counts only when both hold:
//   - the fee source is one of the app's fee-paying wallets (`gas`, or `global` in the single layout). A transaction
//     made outside the service and seen by the ledger follower records its own fee payer (its source when it is not a
//     fee-bump): that fee was not sponsored.
//   - the fee was (or is being) charged: the fee-bump was sent and is in flight (stage `submitted`), or the
//     transaction reached a ledger (SUCCESS, or FAILED with a ledger). One built, signed or denied by the policy was
//     never sent; one refused at submission or expired unsent (FAILED without a ledger) was never applied, and
//     Stellar charges no fee for a transaction it does not apply.
import type { Knex } from 'knex';
import type { OperationTypes } from '../../../generated/server/catalogue.gen';
import { fromStroops } from '../money/amounts';
import { fieldError } from '../errors';
import { decodeCursor, encodeCursor, invalidCursor } from '../paging/cursor';
import type { TxStage, TxStatus } from './store';

/** The contract's page size default (components/parameters/Limit.yaml). */
export const DEFAULT_APP_TX_LIMIT = 20;
/** The most rows one CSV export holds: a wider window is exported in parts, narrowed with `from` and `to`. */
export const MAX_CSV_ROWS = 10_000;

/** The CSV columns: the JSON record's fields, in the contract's order. */
const COLUMNS = [
  'id',
  'hash',
  'type',
  'asset',
  'amount',
  'from',
  'to',
  'feeSponsoredXlm',
  'ledger',
  'status',
  'resultCode',
  'createdAt',
] as const;

/** One transaction as the Dashboard shows it (the contract's record; resultCode null while PENDING). */
export type AppTransaction = OperationTypes['listAppTransactions']['content']['transactions'][number];

export interface AppTxFilters {
  status?: TxStatus;
  /** The main operation type. */
  type?: string;
  /** `native` or CODE:ISSUER: the transaction's `asset`. */
  asset?: string;
  /** Created at or after this time (ISO 8601). */
  from?: string;
  /** Created before this time (ISO 8601). */
  to?: string;
}

export interface AppTxQuery {
  appId: string;
  filters: AppTxFilters;
  limit: number;
  /** Offset paging; ignored when `cursor` is given. */
  offset: number;
  /** A `nextCursor` this list handed out for the same app. */
  cursor?: string;
}

export interface AppTxPage {
  records: AppTransaction[];
  /** Transactions matching the filters, over all pages. */
  total: number;
  /** Position of the page's first record. */
  offset: number;
  /** Opens the next page; null on the last one. */
  nextCursor: string | null;
}

/** The columns a record is made of. */
const SELECTED = [
  'id',
  'hash',
  'operation',
  'asset',
  'amount',
  'source_account',
  'destination',
  'fee_stroops',
  'fee_source',
  'stage',
  'ledger',
  'status',
  'result_code',
  'created_at',
];

interface Row {
  id: string;
  hash: string;
  operation: AppTransaction['type']; // the column holds a StellarOperationType
  asset: string | null;
  amount: string | null;
  source_account: string;
  destination: string | null;
  fee_stroops: string | null;
  fee_source: string | null;
  stage: TxStage;
  ledger: number | null;
  status: TxStatus;
  result_code: string | null;
  created_at: Date;
}

/** The stroops the app's gas wallet paid for a transaction (see the file comment); 0n when it paid nothing. */
export function sponsoredFeeStroops(
  tx: { feeStroops: bigint | null; feeSource: string | null; stage: TxStage; status: TxStatus; ledger: number | null },
  feePayers: ReadonlySet<string>,
): bigint {
  if (tx.feeStroops === null || tx.feeSource === null || !feePayers.has(tx.feeSource)) return 0n;
  if (tx.stage === 'built' || tx.stage === 'signed' || tx.stage === 'denied') return 0n;
  const charged = tx.stage === 'submitted' || tx.status === 'SUCCESS' || tx.ledger !== null;
  return charged ? tx.feeStroops : 0n;
}

function toAppTransaction(row: Row, feePayers: ReadonlySet<string>): AppTransaction {
  const fee = sponsoredFeeStroops(
    {
      feeStroops: row.fee_stroops === null ? null : BigInt(row.fee_stroops),
      feeSource: row.fee_source,
      stage: row.stage,
      status: row.status,
      ledger: row.ledger,
    },
    feePayers,
  );
  return {
    id: row.id,
    hash: row.hash,
    type: row.operation,
    asset: row.asset,
    amount: row.amount,
    from: row.source_account,
    to: row.destination,
    feeSponsoredXlm: fromStroops(fee),
    ledger: row.ledger,
    status: row.status,
    // The contract's rule, held here whatever a stage left in the column.
    resultCode: row.status === 'PENDING' ? null : row.result_code,
    createdAt: row.created_at.toISOString(),
  };
}

/**
 * The rule of sponsoredFeeStroops as an SQL condition over a `transactions` row, for sums in the database (the
 * Dashboard's metrics); `:feePayers` is bound to feePayersOf's keys. tests/operations/dashboard-monitoring checks that
 * the two agree on every kind of stored transaction.
 */
export const SPONSORED_FEE_CONDITION = `fee_stroops is not null and fee_source = any(:feePayers)
  and stage not in ('built', 'signed', 'denied')
  and (stage = 'submitted' or status = 'SUCCESS' or ledger is not null)`;

/** The public keys that pay the app's fees: its gas wallet, or its global wallet in the single layout (either, over time). */
export async function feePayersOf(db: Knex, appId: string): Promise<Set<string>> {
  return new Set(await db('wallets').where({ app_id: appId }).whereIn('role', ['gas', 'global']).pluck('public_key'));
}

/**
 * Refuses a window whose `from` is not before its `to` (400 VALIDATION_ERROR, `query.from`). PostgreSQL compares the
 * two as it filters with them (any offset, any fraction of a second), so the check and the filter never disagree.
 */
async function checkWindow(db: Knex, filters: AppTxFilters): Promise<void> {
  if (filters.from === undefined || filters.to === undefined) return;
  const { rows } = await db.raw<{ rows: { ok: boolean }[] }>('select ?::timestamptz < ?::timestamptz as ok', [
    filters.from,
    filters.to,
  ]);
  if (!rows[0]?.ok) throw fieldError('query.from', 'must be before `to`');
}

/** The app's transactions matching the filters. */
function matching(db: Knex, appId: string, f: AppTxFilters): Knex.QueryBuilder {
  const query = db('transactions').where({ app_id: appId });
  if (f.status !== undefined) query.where({ status: f.status });
  if (f.type !== undefined) query.where({ operation: f.type });
  if (f.asset !== undefined) query.where({ asset: f.asset });
  if (f.from !== undefined) query.whereRaw('created_at >= ?::timestamptz', [f.from]);
  if (f.to !== undefined) query.whereRaw('created_at < ?::timestamptz', [f.to]);
  return query;
}

const NEWEST_FIRST = [
  { column: 'created_at', order: 'desc' as const },
  { column: 'id', order: 'desc' as const },
];

/**
 * A page of the app's transactions, newest first (ties broken by id, so pages never overlap or skip). Throws
 * VALIDATION_ERROR for a window whose `from` is not before `to`, and INVALID_CURSOR for a cursor this app's list did
 * not hand out.
 */
export async function listAppTransactions(db: Knex, q: AppTxQuery): Promise<AppTxPage> {
  const cursor = q.cursor === undefined ? undefined : decodeCursor(q.cursor, 'tx');
  if (q.cursor !== undefined && !cursor) throw invalidCursor();
  await checkWindow(db, q.filters);
  const page = matching(db, q.appId, q.filters)
    .orderBy(NEWEST_FIRST)
    .limit(q.limit + 1) // one more than asked tells whether a next page exists
    .select(SELECTED);
  // Keyset: strictly after the cursor's row in (created_at, id) order, read from the row itself (exact microsecond
  // timestamps, which a JavaScript Date would round), and only from a row of this app.
  if (cursor)
    page.whereRaw(
      '(created_at, id) < (select c.created_at, c.id from transactions c where c.id = ? and c.app_id = ?)',
      [cursor.afterId, q.appId],
    );
  else page.offset(q.offset);
  const [rows, counted, feePayers, cursorKnown] = await Promise.all([
    page as Promise<Row[]>,
    matching(db, q.appId, q.filters).count<{ count: string }[]>({ count: '*' }),
    feePayersOf(db, q.appId),
    cursor ? db('transactions').where({ id: cursor.afterId, app_id: q.appId }).first('id').then(Boolean) : true,
  ]);
  // A cursor of another app (or of a row that is gone) is refused, not followed.
  if (!cursorKnown) throw invalidCursor();
  const offset = cursor ? cursor.offset : q.offset;
  const records = rows.slice(0, q.limit).map((r) => toAppTransaction(r, feePayers));
  const last = records.at(-1);
  return {
    records,
    total: Number(counted[0]?.count ?? 0),
    offset,
    nextCursor:
      rows.length > q.limit && last ? encodeCursor({ afterId: last.id, offset: offset + records.length }) : null,
  };
}

/** One RFC 4180 field: quoted when it holds a comma, a quote or a line break (quotes doubled); null is empty. */
function csvField(value: string | number | null): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** RFC 4180 text: a header row, then one record per line, every line ended by CRLF. */
export function toCsv(records: readonly AppTransaction[]): string {
  const lines = [COLUMNS.join(','), ...records.map((r) => COLUMNS.map((c) => csvField(r[c])).join(','))];
  return lines.map((l) => `${l}\r\n`).join('');
}

/** The CSV export: up to MAX_CSV_ROWS transactions matching the filters, newest first. */
export async function exportAppTransactions(db: Knex, q: { appId: string; filters: AppTxFilters }): Promise<string> {
  await checkWindow(db, q.filters);
  const [rows, feePayers] = await Promise.all([
    matching(db, q.appId, q.filters).orderBy(NEWEST_FIRST).limit(MAX_CSV_ROWS).select(SELECTED) as Promise<Row[]>,
    feePayersOf(db, q.appId),
  ]);
  return toCsv(rows.map((r) => toAppTransaction(r, feePayers)));
}
