// The latest/oldest ledger fields several methods share. Close times are strings in getHealth, getTransaction,
// sendTransaction and getEvents, numbers in getTransactions (which names them ...Timestamp): see stellar-facts.
import type { HistoryStore } from '../../history/historyStore';

export function ledgerRange(history: HistoryStore): {
  latestLedger: number;
  latestLedgerCloseTime: string;
  oldestLedger: number;
  oldestLedgerCloseTime: string;
} {
  const latest = history.latest();
  const oldest = history.oldest();
  return {
    latestLedger: latest.sequence,
    latestLedgerCloseTime: String(latest.closeTime),
    oldestLedger: oldest.sequence,
    oldestLedgerCloseTime: String(oldest.closeTime),
  };
}
