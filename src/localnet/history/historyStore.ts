// What Stellar RPC keeps about past ledgers: for each ledger in the retention window its close time, hash, close meta
// (LedgerCloseMeta, for getLedgers) and applied transactions, and an index from transaction hash (outer and, for
// fee-bumps, inner) to the transaction.
// Ledgers older than the window are dropped with their transactions, so getTransaction answers NOT_FOUND for them
// and oldestLedger moves forward, as on a real RPC node with `history-retention-window`.
import type { AppliedTransaction } from '../engine';

/** Stellar RPC's default `history-retention-window`: 7 days of ~5 s ledgers. */
export const DEFAULT_RETENTION_LEDGERS = 7 * 17280;

export interface LedgerRecord {
  sequence: number;
  /** Unix seconds. */
  closeTime: number;
  /** Hex ledger hash. */
  hash: string;
  /**
   * Base64 LedgerCloseMeta (it holds the LedgerHeaderHistoryEntry too). Absent only for ledgers persisted by a
   * localnet older than getLedgers.
   */
  metadataXdr?: string;
  /** In application order. */
  transactions: AppliedTransaction[];
}

export interface FoundTransaction {
  tx: AppliedTransaction;
  ledger: LedgerRecord;
}

export class HistoryStore {
  /** Ledgers in sequence order; records[head] is the oldest retained one (dropped slots are compacted lazily). */
  private records: LedgerRecord[] = [];
  private head = 0;
  private readonly byHash = new Map<string, FoundTransaction>();

  constructor(readonly retentionLedgers: number = DEFAULT_RETENTION_LEDGERS) {
    if (!Number.isInteger(retentionLedgers) || retentionLedgers < 1)
      throw new Error(`retentionLedgers must be a positive integer, got ${retentionLedgers}`);
  }

  get size(): number {
    return this.records.length - this.head;
  }

  /**
   * Appends the next closed ledger and drops what falls out of the window. A ledger that does not follow the
   * latest one (a gap after a lost history file) starts the history afresh at that ledger.
   */
  record(ledger: LedgerRecord): void {
    const latest = this.latestOrUndefined();
    if (latest && ledger.sequence !== latest.sequence + 1) {
      if (ledger.sequence <= latest.sequence)
        throw new Error(`ledger ${ledger.sequence} is not after the latest recorded ledger ${latest.sequence}`);
      this.clear();
    }
    this.records.push(ledger);
    for (const tx of ledger.transactions) {
      const found = { tx, ledger };
      this.byHash.set(tx.hash.toLowerCase(), found);
      if (tx.innerHash) this.byHash.set(tx.innerHash.toLowerCase(), found);
    }
    while (this.size > this.retentionLedgers) this.dropOldest();
  }

  latest(): LedgerRecord {
    const l = this.latestOrUndefined();
    if (!l) throw new Error('the history holds no ledger yet');
    return l;
  }

  oldest(): LedgerRecord {
    const o = this.records[this.head];
    if (!o) throw new Error('the history holds no ledger yet');
    return o;
  }

  /** The ledger with this sequence, if retained. */
  ledger(sequence: number): LedgerRecord | undefined {
    const first = this.records[this.head];
    if (!first || sequence < first.sequence) return undefined;
    return this.records[this.head + (sequence - first.sequence)];
  }

  /** A transaction by its hash: the outer hash, or the inner hash of a fee-bump. */
  findTransaction(hash: string): FoundTransaction | undefined {
    return this.byHash.get(hash.toLowerCase());
  }

  /** Retained ledgers from `sequence` (clamped to the oldest) up to the latest. */
  *ledgersFrom(sequence: number): Generator<LedgerRecord> {
    const first = this.records[this.head];
    if (!first) return;
    for (let i = this.head + Math.max(0, sequence - first.sequence); i < this.records.length; i++)
      yield this.records[i]!;
  }

  /** The last `count` retained ledgers, oldest first. */
  lastLedgers(count: number): LedgerRecord[] {
    return this.records.slice(Math.max(this.head, this.records.length - count));
  }

  private latestOrUndefined(): LedgerRecord | undefined {
    return this.records.length > this.head ? this.records[this.records.length - 1] : undefined;
  }

  private dropOldest(): void {
    const old = this.records[this.head];
    if (!old) return;
    for (const tx of old.transactions) {
      this.byHash.delete(tx.hash.toLowerCase());
      if (tx.innerHash) this.byHash.delete(tx.innerHash.toLowerCase());
    }
    this.head++;
    // Compact once the dead prefix is large, so dropping stays O(1) amortised.
    if (this.head > 4096 && this.head * 2 > this.records.length) {
      this.records = this.records.slice(this.head);
      this.head = 0;
    }
  }

  private clear(): void {
    this.records = [];
    this.head = 0;
    this.byHash.clear();
  }
}
