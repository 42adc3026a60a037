// When ledgers close: every `intervalMs` like the real network (~5 s, empty ledgers included, so sequence numbers
// and close times move on), or only on demand ('manual', for deterministic tests). Each close applies the engine's
// queue, records the ledger in the history, hands it to persistence, and wakes whoever waits for a transaction
// (friendbot answers only once its transaction is in a ledger, like the real one).
import type { AppliedTransaction, ClosedLedger, LedgerEngine } from './engine';
import type { HistoryStore, LedgerRecord } from './history/historyStore';

export type CloseCadence = { intervalMs: number } | 'manual';

export interface LedgerCloserDeps {
  engine: LedgerEngine;
  history: HistoryStore;
  /** Called after every close, before waiters are woken (persistence). */
  onClosed?: (ledger: ClosedLedger, record: LedgerRecord) => void;
  nowMs: () => number;
  log: (msg: string) => void;
}

interface Waiter {
  resolve: (tx: AppliedTransaction) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

export class LedgerCloser {
  private timer: NodeJS.Timeout | undefined;
  private readonly waiters = new Map<string, Waiter[]>();
  private nextCloseListeners: ((ledger: ClosedLedger) => void)[] = [];
  private demandCloseScheduled = false;
  private stopped = false;

  constructor(
    private readonly deps: LedgerCloserDeps,
    readonly cadence: CloseCadence,
  ) {}

  /** Starts the timer (interval cadence only). */
  start(): void {
    if (this.cadence === 'manual' || this.timer) return;
    this.timer = setInterval(() => {
      try {
        this.close();
      } catch (err) {
        this.deps.log(`ledger close failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      }
    }, this.cadence.intervalMs);
    // The HTTP server keeps a standalone localnet alive; in-process, the timer must not hold the process open.
    this.timer.unref();
  }

  /** Stops the timer and fails pending waits. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    for (const [hash, list] of this.waiters)
      for (const w of list) this.settle(hash, w, undefined, new Error('localnet stopped'));
    this.waiters.clear();
  }

  /**
   * Closes one ledger now. The close time is the wall clock in seconds, never earlier than the previous ledger's:
   * several on-demand closes within one second share a close time rather than running ahead of the clock (which
   * would make transactions with near time bounds fail as too late).
   */
  close(): ClosedLedger {
    const previous = this.deps.history.latest();
    const closeTime = Math.max(Math.floor(this.deps.nowMs() / 1000), previous.closeTime);
    const ledger = this.deps.engine.closeLedger(closeTime);
    const record: LedgerRecord = {
      sequence: ledger.sequence,
      closeTime: ledger.closeTime,
      hash: ledger.hash,
      metadataXdr: ledger.metadataXdr,
      transactions: ledger.transactions,
    };
    this.deps.history.record(record);
    this.deps.onClosed?.(ledger, record);
    for (const tx of ledger.transactions) {
      for (const h of tx.innerHash ? [tx.hash, tx.innerHash] : [tx.hash]) {
        const hash = h.toLowerCase();
        const list = this.waiters.get(hash);
        if (!list) continue;
        this.waiters.delete(hash);
        for (const w of list) this.settle(hash, w, tx);
      }
    }
    for (const listener of this.nextCloseListeners.splice(0)) listener(ledger);
    // On demand: a transaction that did not fit this ledger (operation limit) needs another close.
    if (this.cadence === 'manual' && this.waiters.size > 0) this.scheduleDemandClose();
    return ledger;
  }

  /**
   * Resolves with the applied transaction once a closed ledger holds it (at once if one already does). With the
   * manual cadence it closes a ledger itself (coalescing concurrent waits into one close), so callers such as
   * friendbot can answer synchronously.
   */
  waitForTransaction(hash: string, timeoutMs = 60_000): Promise<AppliedTransaction> {
    const done = this.deps.history.findTransaction(hash);
    if (done) return Promise.resolve(done.tx);
    if (this.stopped) return Promise.reject(new Error('localnet stopped'));
    return new Promise((resolve, reject) => {
      const key = hash.toLowerCase();
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          const list = this.waiters.get(key)?.filter((w) => w !== waiter) ?? [];
          if (list.length) this.waiters.set(key, list);
          else this.waiters.delete(key);
          reject(new Error(`transaction ${hash} was not in a closed ledger after ${timeoutMs} ms`));
        }, timeoutMs),
      };
      waiter.timer.unref();
      const list = this.waiters.get(key);
      if (list) list.push(waiter);
      else this.waiters.set(key, [waiter]);
      if (this.cadence === 'manual') this.scheduleDemandClose();
    });
  }

  /** Resolves at the next close (with the manual cadence, closes one). */
  nextClose(): Promise<ClosedLedger> {
    if (this.stopped) return Promise.reject(new Error('localnet stopped'));
    return new Promise((resolve) => {
      this.nextCloseListeners.push(resolve);
      if (this.cadence === 'manual') this.scheduleDemandClose();
    });
  }

  private scheduleDemandClose(): void {
    if (this.demandCloseScheduled || this.stopped) return;
    this.demandCloseScheduled = true;
    setImmediate(() => {
      this.demandCloseScheduled = false;
      if (this.stopped) return;
      const closeWanted = this.nextCloseListeners.length > 0;
      if (!closeWanted && this.waiters.size === 0) return;
      if (!closeWanted && this.deps.engine.pendingCount() === 0) {
        // Nothing queued can ever satisfy these waits (the transaction was dropped): fail them now.
        for (const [hash, list] of this.waiters)
          for (const w of list) this.settle(hash, w, undefined, new Error(`transaction ${hash} is not queued`));
        this.waiters.clear();
        return;
      }
      try {
        this.close();
      } catch (err) {
        this.deps.log(`ledger close failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      }
    });
  }

  private settle(_hash: string, w: Waiter, tx: AppliedTransaction | undefined, err?: Error): void {
    clearTimeout(w.timer);
    if (tx) w.resolve(tx);
    else w.reject(err ?? new Error('no transaction'));
  }
}
