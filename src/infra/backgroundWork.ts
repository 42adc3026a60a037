// Work a request starts but does not wait for (recording a key's last use, a best-effort friendbot top-up): tracked so
// that shutdown waits for it before the database pool closes, instead of cutting it off mid-write.
import { settleWithin } from './jobs/settleWithin';

export interface BackgroundWork {
  /**
   * Runs `work` without waiting; a failure goes to `onError`, never to the request. Answers a promise that settles
   * (never rejects) once the work and its onError are done, for a caller that waits for it later, or not at all.
   */
  start(work: () => Promise<unknown>, onError: (err: unknown) => void): Promise<void>;
  /** Waits (at most `ms`) for everything started so far. */
  settle(ms: number): Promise<void>;
}

export function createBackgroundWork(): BackgroundWork {
  const running = new Set<Promise<unknown>>();
  return {
    start(work, onError) {
      const p: Promise<void> = work()
        .then(() => undefined, onError)
        .finally(() => running.delete(p));
      running.add(p);
      return p;
    },
    settle: (ms) => settleWithin(Promise.all(running), ms),
  };
}
