// Hand-made ledgers and transactions for unit tests of the history and the RPC methods (no engine needed).
import { xdr } from '@stellar/stellar-sdk';
import type { AppliedTransaction } from '../engine';
import type { LedgerRecord } from './historyStore';

/** A valid, empty TransactionMeta v4 (what a transaction without effects or events would carry). */
export const EMPTY_META_V4 = xdr.TransactionMeta.v4(
  new xdr.TransactionMetaV4({
    ext: xdr.ExtensionPoint.v0(),
    txChangesBefore: [],
    operations: [],
    txChangesAfter: [],
    sorobanMeta: null,
    events: [],
    diagnosticEvents: [],
  }),
).toXdr('base64');

export function fakeTx(ledger: number, order: number, overrides: Partial<AppliedTransaction> = {}): AppliedTransaction {
  const hash = (ledger * 1000 + order).toString(16).padStart(64, '0');
  return {
    hash,
    feeBump: false,
    applicationOrder: order,
    ledger,
    createdAt: 1_700_000_000 + ledger * 5,
    successful: true,
    envelopeXdr: '',
    resultXdr: '',
    resultMetaXdr: EMPTY_META_V4,
    sourceAccount: 'GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7',
    feeCharged: 100n,
    ...overrides,
  };
}

export function fakeLedger(sequence: number, txCount = 0): LedgerRecord {
  return {
    sequence,
    closeTime: 1_700_000_000 + sequence * 5,
    hash: sequence.toString(16).padStart(64, 'a'),
    transactions: Array.from({ length: txCount }, (_, i) => fakeTx(sequence, i + 1)),
  };
}
