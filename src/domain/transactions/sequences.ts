// Sequence numbers of a service wallet's transactions (issue #23): one request, one transaction, and N concurrent
// payments from one wallet land as N transactions, in sequence order.
//
//   reserve  a build takes 1 + max(the chain's sequence, the highest number of the wallet's live records), read before
//            its record is written, and writes the record with that number in one statement. A unique index of the
//            live numbers of the wallet's built records (migration 0033) refuses a second record with the same number:
//            the build that lost reads again and takes the next one (claimSequence). Two builds never share a number,
//            on any number of instances; a number never outlives its record; and nothing waits on a lock. (An
//            advisory lock held from the read to the commit did the same at the cost of two round trips and a
//            transaction of its own.) A client's own transaction keeps the number it brought, so it is not in the
//            index; the builds step over it all the same.
//   gaps     every built transaction carries the precondition minSeqNum = the chain's sequence at build (CAP-21):
//            valid while chain <= account sequence < its own. A reserved number whose transaction never lands (denied,
//            refused, abandoned, expired) then leaves a gap the next transactions simply step over; nothing waits for
//            it and nothing is spent to fill it.
//   order    the chain queues one transaction per source account, and a higher number applied first would void every
//            lower one. So a transaction is sent only in its turn: when no lower live record of its wallet is left
//            (applied, failed or expired), except a build nobody has claimed for IN_FLIGHT_MS (a client's build that
//            may never come: the ones after it go first, and it fails tx_bad_seq if it comes later).
//   moved    when the account's sequence moved outside the service, a transaction whose number was overtaken fails
//            tx_bad_seq at submission; runTransaction, which has answered nothing yet, takes a new number and signs
//            again (resequence).
import { Transaction, xdr } from '@stellar/stellar-sdk';
import type { Knex } from 'knex';
import type { TransactionRow, TxRecord } from './store';
import { preparedQuery } from '../../infra/db/database';

/** Stages in which a record still holds its sequence number. */
export const LIVE_STAGES: TxRecord['stage'][] = ['built', 'signed', 'submitted'];
/** A transaction's time bound is judged against ledger close times, which trail the wall clock by up to a ledger. */
export const TIME_BOUND_GRACE_MS = 10_000;
/** A built or signed record younger than this is on its way to submission and holds the wallet's later ones back. */
export const IN_FLIGHT_MS = 30_000;

/**
 * The live records of `walletId` that hold a sequence number: not yet settled, and still within their time bound
 * (TIME_BOUND_GRACE_MS after it, as ledger close times trail the wall clock).
 */
function liveRecords(db: Knex, walletId: string, now: Date) {
  return db<TransactionRow>('transactions')
    .where({ wallet_id: walletId })
    .whereNotNull('seq_num')
    .whereIn('stage', LIVE_STAGES)
    .where((q) =>
      q.whereNull('valid_until').orWhere('valid_until', '>', new Date(now.getTime() - TIME_BOUND_GRACE_MS)),
    );
}

/** The unique index of the live numbers of a wallet's built records (migration 0033). */
export const LIVE_SEQUENCE_INDEX = 'transactions_wallet_built_live_seq';

/**
 * The highest sequence number of the wallet's records that still hold one (LIVE_STAGES), 0 when none does. Records
 * past their time bound count too until they are settled: a new number must not collide with one in the index.
 */
export async function highestLiveSequence(db: Knex, walletId: string): Promise<bigint> {
  const { rows } = await preparedQuery<{ max: string | null }>(db, 'tx-highest-live-seq', HIGHEST_LIVE_SQL, [walletId]);
  return rows[0]?.max ? BigInt(rows[0].max) : 0n;
}

/**
 * A prepared statement (every run reads it: database.ts preparedQuery). The stages are written out, not a parameter,
 * so that the plan can use the indexes whose predicate names them (migrations 0017 and 0033).
 */
const HIGHEST_LIVE_SQL = `select max(seq_num)::text as max from transactions
  where wallet_id = $1 and seq_num is not null and stage in (${LIVE_STAGES.map((s) => `'${s}'`).join(', ')})`;

/** What a write of a record with a sequence number answers when another live record of the wallet holds it already. */
export const SEQUENCE_TAKEN = Symbol('sequence taken');

/**
 * How many numbers one build may try: each one lost means another build of the wallet took it, so every round some
 * build wins; 50 concurrent builds of one wallet need at most 50 tries for the last of them.
 */
const MAX_SEQUENCE_TRIES = 200;

/**
 * Writes a record with the wallet's next sequence number: `write` gets the number (1 + max(the chain's sequence, the
 * highest live number, `liveMax` when the caller read it already)) and writes the record with it in one statement,
 * answering SEQUENCE_TAKEN when the unique index refused it (another build committed that number first: the write
 * waited for it). The next try reads the live numbers again, and never takes a number below the one it lost.
 */
export async function claimSequence<T>(
  db: Knex,
  walletId: string,
  chainSequence: bigint,
  write: (sequence: bigint) => Promise<T | typeof SEQUENCE_TAKEN>,
  liveMax?: bigint,
): Promise<T> {
  let floor = chainSequence;
  let highest = liveMax ?? (await highestLiveSequence(db, walletId));
  for (let tries = 1; ; tries++) {
    const sequence = (floor > highest ? floor : highest) + 1n;
    const written = await write(sequence);
    if (written !== SEQUENCE_TAKEN) return written;
    if (tries >= MAX_SEQUENCE_TRIES)
      throw new Error(`wallet ${walletId}: no free sequence number after ${MAX_SEQUENCE_TRIES} tries`);
    floor = sequence;
    highest = await highestLiveSequence(db, walletId);
  }
}

/** Whether `err` is the unique index of live numbers refusing a record (an UPDATE that gave a record a new number). */
export function isSequenceTaken(err: unknown): boolean {
  return (
    typeof err === 'object' &&
    err !== null &&
    (err as { code?: unknown }).code === '23505' &&
    (err as { constraint?: unknown }).constraint === LIVE_SEQUENCE_INDEX
  );
}

/**
 * `tx` with sequence number `sequence` and the precondition minSeqNum = `minSequence` (its time bounds kept), unsigned.
 * The operations, memo and fee are untouched, so its description stays true.
 */
export function withSequence(
  tx: Transaction,
  sequence: bigint,
  minSequence: bigint,
  networkPassphrase: string,
): Transaction {
  const envelope = tx.toEnvelope().toXdrObject();
  if (envelope.type !== 2) throw new TypeError('only a v1 transaction envelope can take a sequence number');
  const body = envelope.v1.tx;
  const timeBounds =
    body.cond.type === 1 ? body.cond.timeBounds : body.cond.type === 2 ? body.cond.v2.timeBounds : null;
  const resequenced = xdr.TransactionEnvelope.fromXdrObject({
    type: 2,
    v1: {
      tx: {
        ...body,
        seqNum: sequence,
        cond: {
          type: 2,
          v2: {
            timeBounds,
            ledgerBounds: null,
            minSeqNum: minSequence,
            minSeqAge: 0n,
            minSeqLedgerGap: 0,
            extraSigners: [],
          },
        },
      },
      signatures: [],
    },
  });
  return new Transaction(resequenced, networkPassphrase);
}

/**
 * Whether `record` may be sent now: no lower live record of its wallet is left, but for builds nobody claimed within
 * IN_FLIGHT_MS. Records without a sequence number (activations, older rows) are always in turn.
 */
export async function isInTurn(
  db: Knex,
  record: Pick<TxRecord, 'id' | 'walletId' | 'seqNum'>,
  now: Date,
): Promise<boolean> {
  if (record.walletId === null || record.seqNum === null) return true;
  const ahead = await liveRecords(db, record.walletId, now)
    .where('seq_num', '<', record.seqNum.toString())
    .whereNot({ id: record.id })
    .where((q) => q.where({ stage: 'submitted' }).orWhere('created_at', '>', new Date(now.getTime() - IN_FLIGHT_MS)))
    .first('id');
  return ahead === undefined;
}
