// Events carried by a transaction's meta, split the way Stellar RPC's db.ParseTransaction splits them:
// meta v4 -> transaction events (the fee event), contract events per operation (CAP-67 classic transfer / mint /
// burn, or a Stellar Asset Contract call's events), diagnostic events;
// meta v3 (before protocol 23) -> the Soroban meta's contract events (one operation) and diagnostic events.
import { xdr } from '@stellar/stellar-sdk';

export interface TxEvents {
  transactionEvents: xdr.TransactionEvent[];
  /** One list per operation. */
  contractEvents: xdr.ContractEvent[][];
  diagnosticEvents: xdr.DiagnosticEvent[];
}

export function eventsOfMeta(metaXdr: string): TxEvents {
  const meta = xdr.TransactionMeta.fromXdr(metaXdr, 'base64');
  switch (meta.type) {
    case 'v4':
      return {
        transactionEvents: meta.v4.events,
        contractEvents: meta.v4.operations.map((op) => op.events),
        diagnosticEvents: meta.v4.diagnosticEvents,
      };
    case 'v3': {
      const soroban = meta.v3.sorobanMeta;
      return {
        transactionEvents: [],
        contractEvents: soroban ? [soroban.events] : [],
        diagnosticEvents: soroban ? soroban.diagnosticEvents : [],
      };
    }
    default:
      return { transactionEvents: [], contractEvents: [], diagnosticEvents: [] };
  }
}

/** The `events` / `diagnosticEventsXdr` fields of getTransaction(s), with Go's omitempty on empty lists. */
export function eventsFields(metaXdr: string): { events: Record<string, unknown>; diagnosticEventsXdr?: string[] } {
  const e = eventsOfMeta(metaXdr);
  const events: Record<string, unknown> = {};
  if (e.transactionEvents.length) events.transactionEventsXdr = e.transactionEvents.map((t) => t.toXdr('base64'));
  if (e.contractEvents.length)
    events.contractEventsXdr = e.contractEvents.map((op) => op.map((c) => c.toXdr('base64')));
  return e.diagnosticEvents.length
    ? { events, diagnosticEventsXdr: e.diagnosticEvents.map((d) => d.toXdr('base64')) }
    : { events };
}
