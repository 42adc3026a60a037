// Storage of transactions and wallet histories (migration 0016). A transaction row is what the service knows of one
// transaction; a history row puts it in one wallet's history with that wallet's own summary. Rows are written here
// only, so every history row is counted in `wallet_history_counts` in the same database transaction.
import type { Knex } from 'knex';
import type { NetworkName } from '../../config';
import { newId } from '../ids';
import { safeJson, safeText } from '../text/safeText';

export type TxStatus = 'PENDING' | 'SUCCESS' | 'FAILED';
export type TxStage = 'built' | 'signed' | 'submitted' | 'confirmed' | 'failed' | 'denied';
export type TxOrigin = 'built' | 'client' | 'activation' | 'external' | 'distribution';
export type HistoryDirection = 'sent' | 'received';

export interface TxRecord {
  id: string;
  appId: string;
  network: NetworkName;
  walletId: string | null;
  userId: string | null;
  origin: TxOrigin;
  status: TxStatus;
  stage: TxStage;
  operation: string;
  opsCount: number;
  summary: string;
  summaryTitle: string | null;
  summaryLines: string[] | null;
  sourceAccount: string;
  destination: string | null;
  asset: string | null;
  amount: string | null;
  memo: string | null;
  /** A text memo's exact bytes (base64) when the transaction has one. */
  memoBase64: string | null;
  cosigners: string[] | null;
  unsignedXdr: string | null;
  signedXdr: string | null;
  innerHash: string | null;
  hash: string;
  envelopeXdr: string | null;
  feeStroops: bigint | null;
  feeSource: string | null;
  resultCode: string | null;
  ledger: number | null;
  validUntil: Date | null;
  nextCheckAt: Date | null;
  checks: number;
  createdAt: Date;
  updatedAt: Date;
  submittedAt: Date | null;
  confirmedAt: Date | null;
  /** The inner transaction's sequence number (sequences.ts); null for activations and external transactions. */
  seqNum: bigint | null;
  /** When the RPC first accepted the envelope. */
  sentAt: Date | null;
}

/**
 * A `transactions` row as PostgreSQL returns it (migrations 0016-0018): bigint columns come back as decimal strings,
 * jsonb as parsed values, timestamptz as Date; the text enums are held to their values by check constraints.
 */
export interface TransactionRow {
  id: string;
  app_id: string;
  network: NetworkName;
  wallet_id: string | null;
  user_id: string | null;
  origin: TxOrigin;
  status: TxStatus;
  stage: TxStage;
  operation: string;
  ops_count: number;
  summary: string;
  summary_title: string | null;
  summary_lines: string[] | null;
  source_account: string;
  destination: string | null;
  asset: string | null;
  amount: string | null;
  memo: string | null;
  memo_base64: string | null;
  cosigners: string[] | null;
  unsigned_xdr: string | null;
  signed_xdr: string | null;
  inner_hash: string | null;
  hash: string;
  envelope_xdr: string | null;
  fee_stroops: string | null;
  fee_source: string | null;
  result_code: string | null;
  ledger: number | null;
  valid_until: Date | null;
  next_check_at: Date | null;
  checks: number;
  created_at: Date;
  updated_at: Date;
  submitted_at: Date | null;
  confirmed_at: Date | null;
  seq_num: string | null;
  sent_at: Date | null;
}

export function toTxRecord(row: TransactionRow): TxRecord {
  return {
    id: row.id,
    appId: row.app_id,
    network: row.network,
    walletId: row.wallet_id,
    userId: row.user_id,
    origin: row.origin,
    status: row.status,
    stage: row.stage,
    operation: row.operation,
    opsCount: row.ops_count,
    summary: row.summary,
    summaryTitle: row.summary_title,
    summaryLines: row.summary_lines,
    sourceAccount: row.source_account,
    destination: row.destination,
    asset: row.asset,
    amount: row.amount,
    memo: row.memo,
    memoBase64: row.memo_base64,
    cosigners: row.cosigners,
    unsignedXdr: row.unsigned_xdr,
    signedXdr: row.signed_xdr,
    innerHash: row.inner_hash,
    hash: row.hash,
    envelopeXdr: row.envelope_xdr,
    feeStroops: row.fee_stroops === null ? null : BigInt(row.fee_stroops),
    feeSource: row.fee_source,
    resultCode: row.result_code,
    ledger: row.ledger,
    validUntil: row.valid_until,
    nextCheckAt: row.next_check_at,
    checks: row.checks,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    submittedAt: row.submitted_at,
    confirmedAt: row.confirmed_at,
    seqNum: row.seq_num === null ? null : BigInt(row.seq_num),
    sentAt: row.sent_at,
  };
}

/** What a new transaction row needs; the rest starts empty. */
export interface NewTx {
  appId: string;
  network: NetworkName;
  walletId: string | null;
  userId: string | null;
  origin: TxOrigin;
  status: TxStatus;
  stage: TxStage;
  operation: string;
  opsCount: number;
  summary: string;
  summaryTitle?: string;
  summaryLines?: string[];
  sourceAccount: string;
  destination: string | null;
  asset: string | null;
  amount: string | null;
  memo?: string | null;
  memoBase64?: string | null;
  cosigners?: string[];
  unsignedXdr?: string;
  signedXdr?: string;
  innerHash?: string;
  hash: string;
  envelopeXdr?: string;
  feeStroops?: bigint;
  feeSource?: string;
  resultCode?: string;
  ledger?: number;
  validUntil?: Date;
  submittedAt?: Date;
  /** When the confirmation worker first looks at it (a record inserted already claimed for submission). */
  nextCheckAt?: Date;
  confirmedAt?: Date;
  seqNum?: bigint;
  at: Date;
}

/** A wallet a transaction appears in, with that wallet's own view. */
export interface HistoryEntry {
  walletId: string;
  direction: HistoryDirection;
  summary: string;
}

/**
 * Inserts a transaction and its history rows (and counts them), in `db` (a database transaction, or the pool: it is
 * one statement). Every text is stored in its display form (safeText: chain data may hold NUL, invalid UTF-8 or
 * control characters, which PostgreSQL refuses or garbles); a text memo's exact bytes are kept in memo_base64.
 * Undefined when the transaction already exists on the network, by hash or inner hash (an earlier or concurrent insert
 * of it won), or when it is a built one whose sequence number another live record of the wallet holds
 * (sequences.ts): nothing is written then.
 * One statement (withHistory), so recording a transaction costs one round trip however many wallets it concerns.
 */
export async function insertTransaction(db: Knex, tx: NewTx, history: HistoryEntry[]): Promise<TxRecord | undefined> {
  return (await insertTransactionWith(db, tx, history, []))?.record;
}

/**
 * A write added to the statement that inserts a transaction (insertTransactionWith), as a CTE named `name`, with a
 * RETURNING clause (its rows are counted): it may read `tx` (the inserted row; none when the transaction existed
 * already) and the CTEs before it.
 */
export interface StatementPart {
  name: string;
  sql: string;
  bindings: readonly (string | number)[];
}

/**
 * insertTransaction with more writes in the same statement (`parts`, in order), so that what must be written with a
 * new record costs no round trip of its own and commits with it: answers the record and how many rows each part
 * answered (by name). Undefined, with nothing written by any part that reads `tx`, when the transaction existed.
 */
export async function insertTransactionWith(
  db: Knex,
  tx: NewTx,
  history: HistoryEntry[],
  parts: StatementPart[],
): Promise<{ record: TxRecord; rows: Record<string, number> } | undefined> {
  const insert = db('transactions')
    .insert({
      id: newId('tx'),
      app_id: tx.appId,
      network: tx.network,
      wallet_id: tx.walletId,
      user_id: tx.userId,
      origin: tx.origin,
      status: tx.status,
      stage: tx.stage,
      operation: tx.operation,
      ops_count: tx.opsCount,
      summary: safeText(tx.summary),
      summary_title: tx.summaryTitle === undefined ? null : safeText(tx.summaryTitle),
      summary_lines: tx.summaryLines ? JSON.stringify(safeJson(tx.summaryLines)) : null,
      source_account: tx.sourceAccount,
      destination: tx.destination,
      asset: tx.asset,
      amount: tx.amount,
      memo: tx.memo === undefined || tx.memo === null ? null : safeText(tx.memo),
      memo_base64: tx.memoBase64 ?? null,
      cosigners: tx.cosigners ? JSON.stringify(tx.cosigners) : null,
      unsigned_xdr: tx.unsignedXdr ?? null,
      signed_xdr: tx.signedXdr ?? null,
      inner_hash: tx.innerHash ?? null,
      hash: tx.hash,
      envelope_xdr: tx.envelopeXdr ?? null,
      fee_stroops: tx.feeStroops === undefined ? null : tx.feeStroops.toString(),
      fee_source: tx.feeSource ?? null,
      result_code: tx.resultCode ?? null,
      ledger: tx.ledger ?? null,
      valid_until: tx.validUntil ?? null,
      submitted_at: tx.submittedAt ?? null,
      next_check_at: tx.nextCheckAt ?? null,
      confirmed_at: tx.confirmedAt ?? null,
      seq_num: tx.seqNum === undefined ? null : tx.seqNum.toString(),
      created_at: tx.at,
      updated_at: tx.at,
    })
    // A transaction is recorded once: by its hash, and by its inner transaction's hash once sponsored; and a built
    // one's sequence number is held by one live record of its wallet (sequences.ts).
    .onConflict()
    .ignore()
    .returning('*');
  const { rows } = await withHistory(db, insert, history, tx.at, parts);
  const row = rows[0];
  if (!row) return undefined;
  return {
    record: toTxRecord(row),
    rows: Object.fromEntries(parts.map((p) => [p.name, Number(row[`${p.name}_rows`])])),
  };
}

/**
 * Runs `target` (a query answering the transaction's row as `id`, or no row) as the CTE `tx` of one statement that also
 * adds `entries` to the histories of that transaction and counts the rows it added: no row from `target`, nothing is
 * added. A wallet that already has the transaction is left alone (only new rows are counted). Answers `target`'s rows.
 *
 * One statement rather than one per table: the data-modifying CTEs all run, once, within it (PostgreSQL runs every
 * one whether or not the outer query reads it), the history rows and the counts depend on the rows the CTE before
 * returned, and the foreign keys are checked at its end, when the transaction row exists. The counters are upserted
 * in wallet order, so concurrent writers take their rows' locks alike (a batch of a hundred payments adds a hundred
 * wallets' lines at once).
 */
async function withHistory(
  db: Knex,
  target: Knex.QueryBuilder | Knex.Raw,
  entries: HistoryEntry[],
  at: Date,
  parts: StatementPart[] = [],
): Promise<{ rows: (TransactionRow & Record<string, unknown>)[] }> {
  return db.raw<{ rows: (TransactionRow & Record<string, unknown>)[] }>(
    `with tx as (?),
     added as (
       insert into tx_history (wallet_id, transaction_id, direction, summary, created_at)
       select e.wallet_id, tx.id, e.direction, e.summary, ?::timestamptz
       from tx cross join unnest(?::text[], ?::text[], ?::text[]) as e(wallet_id, direction, summary)
       on conflict (wallet_id, transaction_id) do nothing
       returning wallet_id
     ),
     counted as (
       insert into wallet_history_counts (wallet_id, records)
       select wallet_id, count(*) from added group by wallet_id order by wallet_id
       on conflict (wallet_id) do update set records = wallet_history_counts.records + excluded.records
     )${parts.map((p) => `,\n     ${p.name} as (${p.sql})`).join('')}
     select tx.*${parts.map((p) => `, (select count(*) from ${p.name}) as ${p.name}_rows`).join('')} from tx`,
    [
      target,
      at,
      entries.map((e) => e.walletId),
      entries.map((e) => e.direction),
      entries.map((e) => safeText(e.summary)),
      ...parts.flatMap((p) => p.bindings),
    ],
  );
}

/**
 * Puts an existing transaction in more wallets' histories (a payment's destination wallet, once seen). A wallet that
 * already has it is left alone; only new rows are counted.
 */
export async function addHistory(trx: Knex, transactionId: string, entries: HistoryEntry[], at: Date): Promise<void> {
  if (entries.length === 0) return;
  await withHistory(trx, trx.raw('select ?::text as id', [transactionId]), entries, at);
}

export async function findTransaction(db: Knex, id: string): Promise<TxRecord | undefined> {
  const row = await db<TransactionRow>('transactions').where({ id }).first();
  return row ? toTxRecord(row) : undefined;
}

export async function findTransactionByHash(
  db: Knex,
  network: NetworkName,
  hash: string,
): Promise<TxRecord | undefined> {
  const row = await db<TransactionRow>('transactions').where({ network, hash }).first();
  return row ? toTxRecord(row) : undefined;
}

/** A sponsored transaction by its inner transaction's hash (a signed XDR brought again). */
export async function findTransactionByInnerHash(
  db: Knex,
  network: NetworkName,
  innerHash: string,
): Promise<TxRecord | undefined> {
  const row = await db<TransactionRow>('transactions')
    .where({ network, inner_hash: innerHash })
    .orderBy('created_at', 'desc')
    .first();
  return row ? toTxRecord(row) : undefined;
}

/** How long an own submission is remembered: past the RPC's 7-day retention, the follower cannot read it again. */
const OWN_SUBMISSION_DAYS = 8;

/**
 * Registers, before it is sent, a transaction the service submits without a `transactions` row of its own yet (an
 * activation, a trustline backfill): the ledger follower then leaves it to the step that sent it.
 */
export async function registerOwnSubmission(
  db: Knex,
  input: { network: NetworkName; hashes: string[]; at: Date },
): Promise<void> {
  if (input.hashes.length === 0) return;
  await db('own_submissions')
    .insert(input.hashes.map((hash) => ({ network: input.network, hash, created_at: input.at })))
    .onConflict(['network', 'hash'])
    .ignore();
}

/** Which of `hashes` the service registered as its own submissions on `network`. */
export async function ownSubmissionsAmong(db: Knex, network: NetworkName, hashes: string[]): Promise<Set<string>> {
  if (hashes.length === 0) return new Set();
  const rows = await db<{ network: string; hash: string }>('own_submissions')
    .where('network', network)
    .whereRaw('hash = any(?::text[])', [hashes])
    .select('hash');
  return new Set(rows.map((r) => r.hash));
}

/** Maintenance: forgets own submissions older than the follower can still read. */
export async function pruneOwnSubmissions(db: Knex, now: Date): Promise<number> {
  return db('own_submissions')
    .where('created_at', '<', new Date(now.getTime() - OWN_SUBMISSION_DAYS * 86_400_000))
    .del();
}
