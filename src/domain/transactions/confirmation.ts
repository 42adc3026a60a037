// The confirmation worker: every submitted transaction ends SUCCESS or FAILED in the record, whether or not the request
// that sent it was still there to see the ledger (it waits only a few seconds; the process may have died). Each pass:
//   - takes the due `submitted` records (a conditional UPDATE ... SKIP LOCKED pushes their next check out first, so
//     instances share the work instead of repeating it) and looks each hash up with getTransaction:
//       in a ledger         -> finalizeApplied (SUCCESS, or FAILED with the result code; events)
//       unknown, still valid -> the recorded envelope is resent verbatim (the RPC answers DUPLICATE if it has it), in
//                              its wallet's turn (sequences.ts): a record whose turn has not come is looked at
//                              again soon, without asking the RPC
//                              a first send refused by a congested network for its fee (tx_insufficient_fee naming
//                              the fee that would get in) is wrapped again at that fee within the app's policy, as a
//                              request would (raiseFee), and sent by the next pass; above the maximum it is denied
//                              (TX_POLICY_MAX_FEE_EXCEEDED). A send that was accepted before (and evicted since) is
//                              left to its time bound: the envelope may still be queued elsewhere on the network
//       unknown, past its time bound -> it can never apply: FAILED tx_too_late
//       no envelope recorded (the claimer died before signing) -> the claim is released
//   - marks built or signed transactions that were never submitted and are past their time bound FAILED tx_too_late.
import type { Deps } from '../deps';
import { FeeBumpTransaction, TransactionBuilder } from '@stellar/stellar-sdk';
import type { StellarGateway } from '../../infra/stellar/gateway';
import { recordAudit, SYSTEM_ACTOR } from '../audit/auditLog';
import { loadFeePolicy } from '../feePolicy/policy';
import { findWalletByPublicKey } from '../wallets/store';
import { raisedFeeUnderPolicy, sponsorFee } from './feeBump';
import { StellarUnavailableError, TransactionRejectedError } from '../../infra/stellar/errors';
import { finalizeApplied, finalizeRejected, headlineResultCode, markSent, releaseClaim } from './finalize';
import { isInTurn, TIME_BOUND_GRACE_MS } from './sequences';
import { toTxRecord, type TransactionRow, type TxRecord } from './store';
import { transactionHashHex } from '../../infra/stellar/transactionHash';

export type ConfirmationDeps = Pick<Deps, 'db' | 'clock' | 'log' | 'stellar' | 'jobs' | 'kms'> &
  Partial<Pick<Deps, 'transactions'>>;

/** How often a pass runs. */
export const CONFIRMATION_INTERVAL_MS = 1000;
/** Records looked at per pass: a pass that found this many runs again at once. */
export const CONFIRMATION_BATCH = 100;
/** Checks of one record back off 1, 2, 4... worker intervals (1 s by default) up to this. */
const MAX_BACKOFF_MS = 30_000;

/** How often the confirmation pass runs (TX_CONFIRM_INTERVAL_MS). */
export function confirmationIntervalMs(deps: ConfirmationDeps): number {
  return deps.transactions?.confirmIntervalMs ?? CONFIRMATION_INTERVAL_MS;
}

async function takeDue(deps: ConfirmationDeps): Promise<TxRecord[]> {
  const now = deps.clock.now();
  const result = await deps.db.raw<{ rows: TransactionRow[] }>(
    `update transactions t set checks = t.checks + 1, next_check_at = ?::timestamptz + (least(?::bigint, ?::bigint * power(2, least(t.checks, 5))::bigint) || ' milliseconds')::interval
     where t.id in (
       select id from transactions where stage = 'submitted' and next_check_at <= ? order by next_check_at limit ? for update skip locked
     )
     returning t.*`,
    [now, MAX_BACKOFF_MS, confirmationIntervalMs(deps), now, CONFIRMATION_BATCH],
  );
  return result.rows.map(toTxRecord);
}

async function check(deps: ConfirmationDeps, record: TxRecord): Promise<void> {
  if (!record.envelopeXdr) {
    await releaseClaim(deps, record);
    return;
  }
  const gw = deps.stellar?.gateways?.[record.network];
  if (!gw) return;
  const now = deps.clock.now();
  // Never sent and not its turn yet: nothing to ask the RPC; looked at again with the next passes, not backed off.
  const pastTimeBound = record.validUntil !== null && now.getTime() > record.validUntil.getTime() + TIME_BOUND_GRACE_MS;
  if (!record.sentAt && !(await isInTurn(deps.db, record, now))) {
    if (pastTimeBound) await finalizeRejected(deps, record, 'tx_too_late');
    // Waiting for the turn is not a check against the chain: no backoff builds up meanwhile.
    else
      await deps
        .db('transactions')
        .where({ id: record.id, stage: 'submitted' })
        .update({ next_check_at: now, checks: 0 });
    return;
  }
  const details = await gw.transactionDetails(record.hash);
  if (details) {
    await finalizeApplied(deps, record, details, gw.networkPassphrase);
    return;
  }
  if (pastTimeBound) {
    await finalizeRejected(deps, record, 'tx_too_late');
    return;
  }
  try {
    await gw.submit(TransactionBuilder.fromXDR(record.envelopeXdr, gw.networkPassphrase));
    if (!record.sentAt) {
      // Sent for the first time (its turn came): looked up again from the next pass on, backing off from there.
      await markSent(deps, record.id);
      await deps
        .db('transactions')
        .where({ id: record.id, stage: 'submitted' })
        .update({ next_check_at: now, checks: 0 });
    }
  } catch (err) {
    if (!(err instanceof TransactionRejectedError)) throw err;
    // It may have landed between the lookup above and the resend (the resend then finds its number used).
    const landed = await gw.transactionDetails(record.hash);
    if (landed) await finalizeApplied(deps, record, landed, gw.networkPassphrase);
    // Accepted once, it may still show up in a ledger: its time bound settles it otherwise.
    else if (!record.sentAt) {
      if (err.requiredFeeStroops !== undefined && (await raiseFee(deps, gw, record, err.requiredFeeStroops))) return;
      await finalizeRejected(deps, record, headlineResultCode(err.codes));
    }
  }
}

/**
 * A first send refused by a congested network for its fee: the gas wallet that signed the fee-bump wraps the same inner
 * transaction again at the fee the network asked for, when the app's policy allows it, and the new envelope is recorded
 * for the next pass to send (nothing of the old one was queued). Above the policy's maximum the record is denied, with
 * the audit entry a request's denial writes. False when it is not the service's fee-bump to raise.
 */
async function raiseFee(
  deps: ConfirmationDeps,
  gw: StellarGateway,
  record: TxRecord,
  requiredFeeStroops: bigint,
): Promise<boolean> {
  const envelope = TransactionBuilder.fromXDR(record.envelopeXdr!, gw.networkPassphrase);
  const gasWallet = record.feeSource ? await findWalletByPublicKey(deps.db, record.feeSource) : undefined;
  if (!(envelope instanceof FeeBumpTransaction) || !gasWallet || gasWallet.role === null) return false;
  const inner = envelope.innerTransaction;
  const policy = await loadFeePolicy(deps.db, record.appId);
  const { feeStroops, refusal: reason } = raisedFeeUnderPolicy(policy, inner, requiredFeeStroops);
  const now = deps.clock.now();
  if (reason) {
    await deps.db.transaction(async (trx) => {
      const denied = await trx('transactions')
        .where({ id: record.id, stage: 'submitted' })
        .update({ status: 'FAILED', stage: 'denied', result_code: reason.code, next_check_at: null, updated_at: now });
      if (denied > 0)
        await recordAudit(trx, {
          appId: record.appId,
          action: 'tx.policy_denied',
          actor: SYSTEM_ACTOR,
          ...(record.walletId ? { walletId: record.walletId } : {}),
          purpose: reason.code,
          at: now,
        });
    });
    return true;
  }
  const bump = await sponsorFee(deps, {
    gasWallet,
    inner,
    networkPassphrase: gw.networkPassphrase,
    actor: SYSTEM_ACTOR,
    feeStroops,
  });
  await deps
    .db('transactions')
    .where({ id: record.id, stage: 'submitted', hash: record.hash })
    .update({
      hash: transactionHashHex(bump),
      envelope_xdr: bump.toXDR(),
      fee_stroops: feeStroops.toString(),
      next_check_at: now,
      checks: 0,
      updated_at: now,
    });
  return true;
}

/** Built or signed transactions past their time bound were never sent and never can be. */
async function expireUnsent(deps: ConfirmationDeps): Promise<number> {
  const now = deps.clock.now();
  return deps
    .db('transactions')
    .whereIn('stage', ['built', 'signed'])
    .where('valid_until', '<', new Date(now.getTime() - TIME_BOUND_GRACE_MS))
    .update({ status: 'FAILED', stage: 'failed', result_code: 'tx_too_late', updated_at: now });
}

/** One pass; answers how many records it settled or looked at. */
export async function confirmDue(deps: ConfirmationDeps): Promise<number> {
  const due = await takeDue(deps);
  for (const record of due) {
    try {
      await check(deps, record);
    } catch (err) {
      const level = err instanceof StellarUnavailableError ? 'warn' : 'error';
      deps.log[level]({ err, txId: record.id, hash: record.hash }, 'could not confirm a transaction; retrying later');
    }
  }
  return due.length + (await expireUnsent(deps));
}
