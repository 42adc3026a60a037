// The end of a submitted transaction's life: what the chain said, written once. Both the submitting request (when the
// ledger answers within its wait) and the confirmation worker (otherwise, or after a crash) call these; the conditional
// UPDATE (stage still `submitted`) makes the first writer the only one, so events are never emitted twice.
import type { Knex } from 'knex';
import type { Deps } from '../deps';
import { preparedQuery } from '../../infra/db/database';
import type { ResultCodes } from '../../infra/stellar/resultCodes';
import type { TransactionDetails } from '../../infra/stellar/gateway';
import { releaseDailyOps } from '../feePolicy/dailyOps';
import { recordOutboxEvent } from '../events/outbox';
import { describeTransaction } from './describe';
import { innerOf, stellarTxData } from './stellarTxEvent';
import type { TxRecord } from './store';

/** The one code a user sees for a failure: the first failing operation's when the transaction failed on one. */
export function headlineResultCode(codes: ResultCodes): string {
  if (codes.transaction === 'tx_failed') return codes.operations.find((c) => c !== 'op_success') ?? codes.transaction;
  return codes.transaction;
}

/**
 * Records a transaction the ledger applied (SUCCESS) or applied as failed (FAILED, fee charged, effects rolled back),
 * with its events (`stellar.tx`; `payment.sent` per payment of a successful one) in the same database transaction.
 * False when another writer finished it first.
 */
export async function finalizeApplied(
  deps: Pick<Deps, 'db' | 'clock' | 'jobs'>,
  record: TxRecord,
  details: TransactionDetails,
  networkPassphrase: string,
): Promise<boolean> {
  const now = deps.clock.now();
  const success = details.status === 'SUCCESS';
  return deps.db.transaction(async (trx) => {
    const updated = await trx('transactions')
      .where({ id: record.id, stage: 'submitted' })
      .update({
        status: success ? 'SUCCESS' : 'FAILED',
        stage: success ? 'confirmed' : 'failed',
        result_code: success ? 'tx_success' : headlineResultCode(details.codes),
        ledger: details.ledger,
        fee_stroops: details.feeChargedStroops.toString(),
        confirmed_at: now,
        next_check_at: null,
        updated_at: now,
      });
    if (updated === 0) return false;
    const inner = innerOf(details.envelopeXdr, networkPassphrase);
    await recordOutboxEvent(deps, trx, {
      appId: record.appId,
      type: 'stellar.tx',
      data: stellarTxData(details, record.network, inner),
      at: now,
    });
    if (success) {
      for (const payment of describeTransaction(inner).payments) {
        await recordOutboxEvent(deps, trx, {
          appId: record.appId,
          type: 'payment.sent',
          data: {
            txHash: details.hash,
            fromWalletId: record.walletId,
            from: payment.from,
            to: payment.to,
            asset: payment.asset,
            amount: payment.amount,
            ledger: details.ledger,
          },
          at: now,
        });
      }
    }
    return true;
  });
}

/**
 * Records a transaction that never reached a ledger and never will (refused at submission, or past its time bound
 * unapplied): FAILED, nothing charged. The user's operations for the day stay counted: the cap bounds the fee-bumps
 * the gas wallet signs, and this one was signed.
 */
export async function finalizeRejected(
  deps: Pick<Deps, 'db' | 'clock'>,
  record: TxRecord,
  resultCode: string,
  fromStages: TxRecord['stage'][] = ['submitted'],
): Promise<boolean> {
  const now = deps.clock.now();
  const updated = await deps
    .db('transactions')
    .where({ id: record.id })
    .whereIn('stage', fromStages)
    .update({ status: 'FAILED', stage: 'failed', result_code: resultCode, next_check_at: null, updated_at: now });
  return updated > 0;
}

/**
 * Gives back a claim that never sent anything (the fee-bump could not be signed, or the process died before the
 * envelope was recorded): the record is signable again and the user's operations for the day are released.
 */
export async function releaseClaim(deps: Pick<Deps, 'db' | 'clock'>, record: TxRecord): Promise<boolean> {
  const now = deps.clock.now();
  return deps.db.transaction(async (trx: Knex.Transaction) => {
    const updated = await trx('transactions')
      .where({ id: record.id, stage: 'submitted' })
      .whereNull('envelope_xdr')
      .update({ status: 'PENDING', stage: 'signed', submitted_at: null, next_check_at: null, updated_at: now });
    if (updated === 0) return false;
    if (record.userId && record.submittedAt) {
      await releaseDailyOps(trx, {
        appId: record.appId,
        userId: record.userId,
        at: record.submittedAt,
        ops: record.opsCount,
      });
    }
    return true;
  });
}

/** Notes that the RPC accepted the record's envelope (PENDING or DUPLICATE): the wallet's next one may go. */
export async function markSent(deps: Pick<Deps, 'db' | 'clock'>, txId: string): Promise<void> {
  await deps.db('transactions').where({ id: txId }).whereNull('sent_at').update({ sent_at: deps.clock.now() });
}

/**
 * markSent, and the confirmation worker looks after the record from its next pass on (the submitting request hands
 * it over once the RPC accepted it), in one update. A writer that settled the record meanwhile (the ledger follower)
 * keeps its own next check.
 */
export async function markSentAndHandOver(deps: Pick<Deps, 'db' | 'clock'>, txId: string): Promise<void> {
  await preparedQuery(deps.db, 'tx-mark-sent', MARK_SENT_SQL, [txId, deps.clock.now()]);
}

/** A prepared statement, as every submission marks its send (database.ts preparedQuery). */
const MARK_SENT_SQL = `update transactions set sent_at = coalesce(sent_at, $2),
    next_check_at = case when stage = 'submitted' then $2::timestamptz else next_check_at end,
    checks = case when stage = 'submitted' then 0 else checks end
  where id = $1`;
