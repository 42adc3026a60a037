// Sequence numbers of a service wallet's transactions (issue #23): one request, one transaction, and N concurrent
// payments from one wallet land as N transactions, in sequence order.
//
//   reserve  a build takes 1 + max(the chain's sequence, the highest number of the wallet's live records) under a
//            per-wallet advisory lock, in the database transaction that inserts its record: two builds never share a
//            number, on any number of instances, and a number never outlives its record.
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
import pg from 'pg';
import type { TransactionRow, TxRecord } from './store';

/** Stages in which a record still holds its sequence number. */
export const LIVE_STAGES: TxRecord['stage'][] = ['built', 'signed', 'submitted'];
/** A transaction's time bound is judged against ledger close times, which trail the wall clock by up to a ledger. */
export const TIME_BOUND_GRACE_MS = 10_000;
/** A built or signed record younger than this is on its way to submission and holds the wallet's later ones back. */
export const IN_FLIGHT_MS = 30_000;

/**
 * The condition on `transactions` rows of the live records of a wallet (not yet settled, still within their time
 * bound) with a sequence number; `wallet` and `boundAfter` are SQL values (placeholders or quoted literals).
 */
function liveCondition(wallet: string, boundAfter: string): string {
  return `wallet_id = ${wallet} and seq_num is not null and stage in (${LIVE_STAGES.map((s) => `'${s}'`).join(', ')})
    and (valid_until is null or valid_until > ${boundAfter})`;
}

/** A live record's time bound is after this (TIME_BOUND_GRACE_MS). */
function liveBoundAfter(now: Date): Date {
  return new Date(now.getTime() - TIME_BOUND_GRACE_MS);
}

/** Live records of `walletId` (liveCondition). */
function liveRecords(db: Knex | Knex.Transaction, walletId: string, now: Date) {
  return db<TransactionRow>('transactions').whereRaw(liveCondition('?', '?::timestamptz'), [
    walletId,
    liveBoundAfter(now),
  ]);
}

/**
 * Reserves the wallet's next sequence number. Must run inside the database transaction that records the transaction
 * using it: the advisory lock is held until that transaction ends, so the next reservation sees this record.
 */
export async function reserveSequence(
  trx: Knex.Transaction,
  walletId: string,
  chainSequence: bigint,
  now: Date,
): Promise<bigint> {
  // The lock, then the highest live number read under it, in one round trip: two statements in one query string (the
  // simple query protocol, which takes no bindings: the values are quoted literals) run one after the other, each on
  // a snapshot of its own (READ COMMITTED), so the read, which starts once the lock is held, sees every record that
  // the lock's earlier holders committed. (In one statement, its snapshot would predate the wait for the lock.)
  const literal = pg.escapeLiteral;
  // The driver answers a result per statement.
  const [, live] = (await trx.raw(
    `select pg_advisory_xact_lock(hashtextextended(${literal(`wallet-sequence:${walletId}`)}, 0));
     select max(seq_num) as max from transactions
     where ${liveCondition(literal(walletId), `${literal(liveBoundAfter(now).toISOString())}::timestamptz`)}`,
  )) as [unknown, { rows: { max: string | null }[] }];
  const max = live.rows[0]?.max;
  const liveMax = max ? BigInt(max) : 0n;
  return (chainSequence > liveMax ? chainSequence : liveMax) + 1n;
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
