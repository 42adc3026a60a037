// What claims and pushes share once a payout's fate is known: the records of a paid payout, and the reconciliation of
// a payout whose sender did not live to see its outcome. Each caller moves its own row (a claim, a push recipient)
// with a conditional update in the same database transaction, so a payout is recorded once however many passes race.
import { TransactionBuilder } from '@stellar/stellar-sdk';
import type { Knex } from 'knex';
import type { NetworkName } from '../../config';
import { TransactionRejectedError } from '../../infra/stellar/errors';
import { gatewayFor } from '../chain/gateways';
import type { Deps } from '../deps';
import { recordOutboxEvents } from '../events/outbox';
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
  return (await recordPaidPayouts(deps, trx, [paid])).get(paid.hash);
}

/** recordPaidPayout for several payouts at once (a batch settling together): a few statements per transaction. */
export async function recordPaidPayouts(
  deps: Pick<Deps, 'clock' | 'jobs'>,
  trx: Knex.Transaction,
  paid: PaidPayout[],
): Promise<Map<string, string | undefined>> {
  const at = deps.clock.now();
  const byHash = new Map<string, PaidPayout[]>();
  for (const p of paid) byHash.set(p.hash, [...(byHash.get(p.hash) ?? []), p]);
  const txIds = new Map<string, string | undefined>();
  for (const [hash, group] of byHash) {
    const first = group[0]!;
    const line = (p: PaidPayout) => `${fromStroops(p.amountStroops)} ${assetCodeOf(p.asset)} (${p.label})`;
    let txId = (await findTransactionByHash(trx, first.network, hash))?.id;
    const transaction = group.find((p) => p.transaction)?.transaction;
    if (!txId && transaction) {
      const inserted = await insertTransaction(
        trx,
        {
          appId: first.appId,
          network: first.network,
          walletId: first.walletId,
          userId: first.userId,
          origin: 'distribution',
          status: 'SUCCESS',
          stage: 'confirmed',
          operation: 'payment',
          opsCount: transaction.opsCount,
          summary: `Received ${line(first)}`,
          sourceAccount: transaction.sourceAccount,
          destination: null,
          asset: first.asset,
          amount: fromStroops(first.amountStroops),
          hash,
          innerHash: transaction.innerHash,
          envelopeXdr: transaction.envelopeXdr,
          feeStroops: transaction.feeStroops,
          feeSource: transaction.feeSource,
          resultCode: 'tx_success',
          ledger: first.ledger,
          validUntil: transaction.validUntil,
          submittedAt: at,
          confirmedAt: at,
          at,
        },
        [],
      );
      txId = inserted?.id ?? (await findTransactionByHash(trx, first.network, hash))?.id;
    }
    if (txId) {
      await addHistory(
        trx,
        txId,
        [
          ...group.map((p) => ({
            walletId: p.walletId,
            direction: 'received' as const,
            summary: `Received ${line(p)}`,
          })),
          { walletId: first.distribution.id, direction: 'sent', summary: `Distributed ${line(first)}` },
        ],
        at,
      );
    }
    txIds.set(hash, txId);
  }
  await recordOutboxEvents(
    deps,
    trx,
    paid.map((p) => ({
      appId: p.appId,
      type: 'wallet.funded' as const,
      data: { walletId: p.walletId, asset: p.asset, amount: fromStroops(p.amountStroops), txHash: p.hash },
      at,
    })),
  );
  return txIds;
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
