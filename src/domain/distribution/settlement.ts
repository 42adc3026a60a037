// What claims and pushes share once a payout's fate is known: the records of a paid payout, and the reconciliation of
// a payout whose sender did not live to see its outcome. Each caller moves its own row (a claim, a push recipient)
// with a conditional update in the same database transaction, so a payout is recorded once however many passes race.
import { TransactionBuilder } from '@stellar/stellar-sdk';
import type { Knex } from 'knex';
import type { NetworkName } from '../../config';
import { TransactionRejectedError } from '../../infra/stellar/errors';
import { gatewayFor } from '../chain/gateways';
import type { Deps } from '../deps';
import { recordOutboxEvent } from '../events/outbox';
import { fromStroops } from '../money/amounts';
import { headlineResultCode } from '../transactions/finalize';
import { TIME_BOUND_GRACE_MS } from '../transactions/sequences';
import { addHistory, findTransactionByHash, insertTransaction } from '../transactions/store';
import { appWalletFor } from '../wallets/treasuryWallets';
import type { WalletRecord } from '../wallets/store';
import { recordFailedPayout, type PayoutTransaction } from './payouts';

export const assetCodeOf = (asset: string): string => (asset === 'native' ? 'XLM' : asset.split(':')[0]!);

export interface PaidPayout {
  appId: string;
  network: NetworkName;
  userId: string;
  walletId: string;
  asset: string;
  amountStroops: bigint;
  /** What it was for, in the history lines: a rule's or a push's name. */
  label: string;
  distribution: WalletRecord;
  /** The envelope it went in; undefined only when the transaction is recorded already. */
  transaction: PayoutTransaction | undefined;
  hash: string;
  ledger: number;
}

/**
 * A paid payout's records, in the caller's database transaction: the payment in the app's transactions (one row per
 * transaction, written by the first of its payouts to settle), the user's wallet `received` and the distribution
 * wallet `sent` in their histories, and wallet.funded. Answers the transaction record's id.
 */
export async function recordPaidPayout(
  deps: Pick<Deps, 'clock' | 'jobs'>,
  trx: Knex.Transaction,
  paid: PaidPayout,
): Promise<string | undefined> {
  const at = deps.clock.now();
  const amount = fromStroops(paid.amountStroops);
  const code = assetCodeOf(paid.asset);
  let txId = (await findTransactionByHash(trx, paid.network, paid.hash))?.id;
  if (!txId && paid.transaction) {
    const inserted = await insertTransaction(
      trx,
      {
        appId: paid.appId,
        network: paid.network,
        walletId: paid.walletId,
        userId: paid.userId,
        origin: 'distribution',
        status: 'SUCCESS',
        stage: 'confirmed',
        operation: 'payment',
        opsCount: paid.transaction.opsCount,
        summary: `Received ${amount} ${code} (${paid.label})`,
        sourceAccount: paid.transaction.sourceAccount,
        destination: null,
        asset: paid.asset,
        amount,
        hash: paid.hash,
        innerHash: paid.transaction.innerHash,
        envelopeXdr: paid.transaction.envelopeXdr,
        feeStroops: paid.transaction.feeStroops,
        feeSource: paid.transaction.feeSource,
        resultCode: 'tx_success',
        ledger: paid.ledger,
        validUntil: paid.transaction.validUntil,
        submittedAt: at,
        confirmedAt: at,
        at,
      },
      [],
    );
    txId = inserted?.id ?? (await findTransactionByHash(trx, paid.network, paid.hash))?.id;
  }
  if (txId) {
    await addHistory(
      trx,
      txId,
      [
        { walletId: paid.walletId, direction: 'received', summary: `Received ${amount} ${code} (${paid.label})` },
        { walletId: paid.distribution.id, direction: 'sent', summary: `Distributed ${amount} ${code} (${paid.label})` },
      ],
      at,
    );
  }
  await recordOutboxEvent(deps, trx, {
    appId: paid.appId,
    type: 'wallet.funded',
    data: { walletId: paid.walletId, asset: paid.asset, amount, txHash: paid.hash },
    at,
  });
  return txId;
}

/** A payout recorded (hash and envelope) before it was sent, whose sender did not see it settle. */
export interface RecordedPayout {
  appId: string;
  network: NetworkName;
  txHash: string;
  envelopeXdr: string;
  validUntil: Date | null;
}

export type Reconciled =
  /** Applied: settle it paid with `sent` (the fee as charged). */
  | { kind: 'paid'; sent: PayoutTransaction; ledger: number; distribution: WalletRecord | undefined }
  /** Failed in its ledger: nothing moved but the fee, which is recorded now. */
  | { kind: 'failed'; resultCode: string }
  /** Never in a ledger, and past its time bound it never can be: safe to send again with a new envelope. */
  | { kind: 'expired' }
  /** Not in a ledger yet and still valid: sent again verbatim (the same hash); look again later. */
  | { kind: 'waiting' };

/**
 * Looks a recorded payout up on the chain and says what became of it (see Reconciled). Throws when the chain cannot be
 * read (the caller retries later); a malformed recorded envelope throws too.
 */
export async function reconcilePayout(
  deps: Pick<Deps, 'db' | 'clock' | 'stellar'>,
  payout: RecordedPayout,
  now: Date,
): Promise<Reconciled> {
  const gw = gatewayFor(deps, payout.network);
  const details = await gw.transactionDetails(payout.txHash);
  if (details) {
    const bump = TransactionBuilder.fromXDR(payout.envelopeXdr, gw.networkPassphrase);
    const inner = 'innerTransaction' in bump ? bump.innerTransaction : bump;
    const sent: PayoutTransaction = {
      hash: payout.txHash,
      innerHash: Buffer.from(inner.hash()).toString('hex'),
      envelopeXdr: payout.envelopeXdr,
      sourceAccount: inner.source,
      feeSource: 'feeSource' in bump ? bump.feeSource : inner.source,
      feeStroops: details.feeChargedStroops,
      opsCount: inner.operations.length,
      validUntil: payout.validUntil ?? now,
    };
    const distribution = await appWalletFor(deps.db, payout.appId, payout.network, 'distribution');
    if (details.status === 'SUCCESS') return { kind: 'paid', sent, ledger: details.ledger, distribution };
    // Failed in its ledger: the fee it cost is recorded (the sending batch's process died before it could).
    const resultCode = headlineResultCode(details.codes);
    if (distribution)
      await recordFailedPayout(deps, { distribution, network: payout.network, sent, details, resultCode });
    return { kind: 'failed', resultCode };
  }
  if (payout.validUntil && now.getTime() > payout.validUntil.getTime() + TIME_BOUND_GRACE_MS)
    return { kind: 'expired' };
  // Maybe never sent (the sender died right after recording it): sent again verbatim, the same hash.
  try {
    await gw.submit(TransactionBuilder.fromXDR(payout.envelopeXdr, gw.networkPassphrase));
  } catch (err) {
    if (!(err instanceof TransactionRejectedError)) throw err;
  }
  return { kind: 'waiting' };
}
