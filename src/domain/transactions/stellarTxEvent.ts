// The `stellar.tx` event's data: the raw Stellar data of a transaction in a ledger (hash, ledger, the inner
// transaction's source and operations as the SDK decodes them, the envelope and result XDR), for the transactions
// the service submits (finalize.ts) and those of its wallets it sees on the ledger (ledgerFollower.ts).
import { TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import type { NetworkName } from '../../config';
import type { TransactionDetails } from '../../infra/stellar/gateway';

/** The inner transaction of an envelope (the transaction itself when it is not a fee-bump). */
export function innerOf(envelopeXdr: string, networkPassphrase: string): Transaction {
  const parsed = TransactionBuilder.fromXDR(envelopeXdr, networkPassphrase);
  return 'innerTransaction' in parsed ? parsed.innerTransaction : parsed;
}

/** JSON-safe operation objects (the SDK's decoded form, assets as names, bigints as strings). */
function rawOperations(inner: Transaction): Record<string, unknown>[] {
  return inner.operations.map(
    (op) =>
      JSON.parse(
        JSON.stringify(op, (_key, value: unknown) => {
          if (typeof value === 'bigint') return value.toString();
          if (
            value &&
            typeof value === 'object' &&
            'code' in value &&
            'issuer' in value &&
            typeof (value as { isNative?: unknown }).isNative === 'function'
          ) {
            const asset = value as { isNative(): boolean; code: string; issuer: string };
            return asset.isNative() ? 'native' : `${asset.code}:${asset.issuer}`;
          }
          return value;
        }),
      ) as Record<string, unknown>,
  );
}

/** The contract's WebhookStellarTx `data` for a transaction in a ledger. */
export function stellarTxData(
  details: Pick<TransactionDetails, 'hash' | 'ledger' | 'feeBump' | 'envelopeXdr' | 'resultXdr'>,
  network: NetworkName,
  inner: Transaction,
): Record<string, unknown> {
  return {
    hash: details.hash,
    ledger: details.ledger,
    network,
    sourceAccount: inner.source,
    feeBump: details.feeBump,
    operations: rawOperations(inner),
    envelopeXdr: details.envelopeXdr,
    resultXdr: details.resultXdr,
  };
}
