// A transaction as the chain has it (getTransaction / getTransactions), read for the wallets it involves: who it is
// from (the transaction's source and every operation's own source) and who it pays (payment-like operations'
// destinations, merge destinations), and each involved account's one-line view of it. Shared by the ledger follower,
// which records such transactions, and getTransaction, which answers one the service has not recorded. Pure.
import { StrKey, TransactionBuilder, type FeeBumpTransaction, type Transaction } from '@stellar/stellar-sdk';
import type { TransactionDetails } from '../../infra/stellar/gateway';
import { accountOf, describeTransaction, shortAddress, type TxDescription } from './describe';
import { headlineResultCode } from './finalize';
import type { HistoryDirection } from './store';

export interface ChainTransaction {
  details: TransactionDetails;
  /** The hash on the chain: the fee-bump's for a sponsored transaction. */
  hash: string;
  /** The inner transaction's hash, for a fee-bump; null otherwise. */
  innerHash: string | null;
  inner: Transaction;
  /** Who paid the fee: the fee-bump's fee source, else the transaction's source. */
  feeSource: string;
  description: TxDescription;
  /** `tx_success`, or the failing code users know (`op_underfunded`...). */
  resultCode: string;
  /** The transaction's source and every operation's own source (G-addresses). */
  sources: Set<string>;
  /** Accounts paid by a payment-like operation or merged into (G-addresses); none left out for a failed transaction. */
  destinations: Set<string>;
  /** The account's direction and history line; undefined when the account is not part of the transaction. */
  viewOf(publicKey: string): { direction: HistoryDirection; summary: string } | undefined;
}

/** The transaction of a chain record; undefined when the envelope cannot be read (never expected from an RPC). */
export function describeChainTransaction(
  details: TransactionDetails,
  networkPassphrase: string,
): ChainTransaction | undefined {
  let envelope: Transaction | FeeBumpTransaction;
  let description: TxDescription;
  try {
    envelope = TransactionBuilder.fromXDR(details.envelopeXdr, networkPassphrase);
  } catch {
    return undefined;
  }
  const feeBump = 'innerTransaction' in envelope;
  const inner = feeBump ? (envelope as FeeBumpTransaction).innerTransaction : (envelope as Transaction);
  try {
    description = describeTransaction(inner);
  } catch {
    return undefined;
  }
  const source = accountOf(inner.source);
  const sources = new Set([source, ...inner.operations.flatMap((op) => (op.source ? [accountOf(op.source)] : []))]);
  const destinations = new Set([...description.payments.map((p) => p.to), ...description.accountMergeDestinations]);
  return {
    details,
    hash: Buffer.from(envelope.hash()).toString('hex'),
    innerHash: feeBump ? Buffer.from(inner.hash()).toString('hex') : null,
    inner,
    feeSource: feeBump ? accountOf((envelope as FeeBumpTransaction).feeSource) : source,
    description,
    resultCode: details.status === 'SUCCESS' ? 'tx_success' : headlineResultCode(details.codes),
    sources,
    destinations,
    viewOf(publicKey) {
      if (!StrKey.isValidEd25519PublicKey(publicKey) || (!sources.has(publicKey) && !destinations.has(publicKey)))
        return undefined;
      const view = description.summaryFor(publicKey);
      // A merge moves a whole balance the envelope does not state: describe names only the merging account's side.
      if (
        !sources.has(publicKey) &&
        view.direction === 'sent' &&
        description.accountMergeDestinations.includes(publicKey)
      ) {
        return { direction: 'received', summary: `Account ${shortAddress(source)} merged into this wallet` };
      }
      return { direction: view.direction, summary: view.text };
    },
  };
}
