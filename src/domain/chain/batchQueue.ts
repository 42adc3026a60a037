// Batching of chain work that arrives one request at a time: items queued under one key (the wallet that sends them)
// wait a few milliseconds for company, then go in batches that fit one transaction, up to `concurrency` batches of
// one key at once (one per channel account). The batch's work is the caller's (`run`): it takes its batch when it is
// ready to build (so the batch fills with everything that arrived meanwhile), settles each entry, and may put the
// entries of a batch the ledger refused as a whole back to be retried one by one, so one bad item never holds the
// others back. In-process only: what must survive a crash is recorded by `run` before it sends anything.

export interface BatchEntry<I, R> {
  item: I;
  /** Retried alone after its batch was refused as a whole. */
  solo: boolean;
  resolve(result: R): void;
  reject(err: unknown): void;
}

export interface BatchTurn<I, R> {
  /** The next batch: a solo entry alone, else entries in order while `fits` accepts them. Call once. */
  take(): BatchEntry<I, R>[];
  /** Puts these entries back at the front, each to go alone. */
  retryAlone(entries: BatchEntry<I, R>[]): void;
  /** Puts these entries back at the front as they were (a batch to build again, e.g. after a bad sequence). */
  retry(entries: BatchEntry<I, R>[]): void;
}

export interface BatchQueueOptions<I> {
  /** How long a new batch waits for company. */
  gatherMs: number;
  /** Batches of one key under way at once (at least 1). */
  concurrency: number;
  /** At most this many entries per batch. */
  maxItems: number;
  /** Whether `next` still fits in a transaction with `batch` (operations, signatures). */
  fits(batch: I[], next: I): boolean;
}

interface KeyQueue<S, I, R> {
  shared: S;
  pending: BatchEntry<I, R>[];
  /** Batches under way; `gathering` of them have not taken their entries yet. */
  running: number;
  gathering: number;
  scheduled: boolean;
}

export class BatchQueue<S, I, R> {
  private readonly queues = new Map<string, KeyQueue<S, I, R>>();

  /**
   * `run` does one batch of the key whose context is `shared` (the first caller's for the key, kept while the key has
   * work). It must settle every entry it takes; what it throws is logged by nobody, so it should not throw.
   */
  constructor(
    private readonly options: BatchQueueOptions<I>,
    private readonly run: (shared: S, turn: BatchTurn<I, R>) => Promise<void>,
  ) {}

  /** Queues `item` under `key`; resolves or rejects as its batch's run settles it. */
  add(key: string, shared: S, item: I): Promise<R> {
    let queue = this.queues.get(key);
    if (!queue) {
      queue = { shared, pending: [], running: 0, gathering: 0, scheduled: false };
      this.queues.set(key, queue);
    }
    const q = queue;
    return new Promise<R>((resolve, reject) => {
      q.pending.push({ item, solo: false, resolve, reject });
      this.schedule(key, q);
    });
  }

  private schedule(key: string, q: KeyQueue<S, I, R>): void {
    if (q.scheduled) return;
    q.scheduled = true;
    setTimeout(() => {
      q.scheduled = false;
      this.pump(key, q);
    }, this.options.gatherMs);
  }

  /** Starts batches while there are entries no running batch will take, up to `concurrency`. */
  private pump(key: string, q: KeyQueue<S, I, R>): void {
    const { concurrency, maxItems } = this.options;
    while (q.running < Math.max(1, concurrency) && q.gathering * maxItems < q.pending.length) {
      q.running += 1;
      q.gathering += 1;
      let taken = false;
      const turn: BatchTurn<I, R> = {
        take: () => {
          if (taken) return [];
          taken = true;
          q.gathering -= 1;
          const batch = this.take(q);
          // Entries that did not fit go in another batch now, not after this one ends.
          if (q.pending.length > 0) this.pump(key, q);
          return batch;
        },
        retryAlone: (entries) => {
          q.pending.unshift(...entries.map((e) => ({ ...e, solo: true })));
        },
        retry: (entries) => {
          q.pending.unshift(...entries);
        },
      };
      void this.run(q.shared, turn)
        .catch((err: unknown) => {
          // A run that failed before taking its batch: the entries it would have taken cannot go now.
          if (!taken) for (const entry of turn.take()) entry.reject(err);
        })
        .finally(() => {
          if (!taken) for (const entry of turn.take()) entry.reject(new Error('the batch run ended without its batch'));
          q.running -= 1;
          if (q.pending.length > 0) this.pump(key, q);
          else if (q.running === 0) this.queues.delete(key);
        });
    }
  }

  private take(q: KeyQueue<S, I, R>): BatchEntry<I, R>[] {
    const first = q.pending.shift();
    if (!first) return [];
    if (first.solo) return [first];
    const batch = [first];
    while (
      q.pending.length > 0 &&
      batch.length < this.options.maxItems &&
      !q.pending[0]!.solo &&
      this.options.fits(
        batch.map((e) => e.item),
        q.pending[0]!.item,
      )
    ) {
      batch.push(q.pending.shift()!);
    }
    return batch;
  }
}
