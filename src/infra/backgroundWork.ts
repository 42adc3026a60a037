// Work a request starts but does not wait for (recording a key's last use, a best-effort friendbot top-up): tracked so
// that shutdown waits for it before the database pool closes, instead of cutting it off mid-write.
import { settleWithin } from './jobs/settleWithin';

export interface BackgroundWork {
  /** Runs `work` without waiting; a failure goes to `onError`, never to the request. */
  start(work: () => Promise<unknown>, onError: (err: unknown) => void): void;
  /** Waits (at most `ms`) for everything started so far. */
  settle(ms: number): Promise<void>;
}

export function createBackgroundWork(): BackgroundWork {
  const running = new Set<Promise<unknown>>();
  return {
    start(work, onError) {
      const p = work()
        .catch(onError)
        .finally(() => running.delete(p));
      running.add(p);
    },
    settle: (ms) => settleWithin(Promise.all(running), ms),
  };
}
