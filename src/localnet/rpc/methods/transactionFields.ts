// The per-transaction fields getTransaction and getTransactions share (protocol.TransactionDetails).
import type { AppliedTransaction } from '../../engine';
import { eventsFields } from '../../history/txEvents';

export function transactionDetails(tx: AppliedTransaction): Record<string, unknown> {
  const { events, diagnosticEventsXdr } = eventsFields(tx.resultMetaXdr);
  return {
    applicationOrder: tx.applicationOrder,
    feeBump: tx.feeBump,
    envelopeXdr: tx.envelopeXdr,
    resultXdr: tx.resultXdr,
    resultMetaXdr: tx.resultMetaXdr,
    ...(diagnosticEventsXdr ? { diagnosticEventsXdr } : {}),
    events,
    ledger: tx.ledger,
  };
}

export function transactionStatus(tx: AppliedTransaction): 'SUCCESS' | 'FAILED' {
  return tx.successful ? 'SUCCESS' : 'FAILED';
}
