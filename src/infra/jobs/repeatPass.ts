// The one shape of the service's background loops (activation recovery, trustline backfill, confirmations, the
// sponsor balance scan): a pass, then the next one `intervalMs` after it ended (at once when the pass says more work
// is waiting), never two passes of one loop at a time, failures logged and never thrown, and a stop that waits for
// the running pass (at most `stopWaitMs` when given: a pass waiting for a ledger holds only leases).
import type { Logger } from 'pino';
import { settleWithin } from './settleWithin';

export interface RepeatPassOptions {
  /** Names the loop in the log line of a failed pass: `<what> failed`. */
  what: string;
  log: Pick<Logger, 'warn' | 'error'>;
  /** The level of a failed pass's log line (default warn). */
  failureLevel?: 'warn' | 'error';
  intervalMs: number;
  /** Delay before the first pass (default 0: at once). */
  firstDelayMs?: number;
  /** How long stop() waits for a running pass (default: until it ends). */
  stopWaitMs?: number;
  /** One pass; `true` when more work is waiting, so the next pass starts at once. */
  pass: () => Promise<boolean | void>;
}

/** Starts the loop; returns stop(). */
export function repeatPass(opts: RepeatPassOptions): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(tick, ms);
    timer.unref();
  };
  const tick = () => {
    running = opts
      .pass()
      .catch((err: unknown) => {
        opts.log[opts.failureLevel ?? 'warn']({ err }, `${opts.what} failed`);
        return false;
      })
      .then((more) => {
        running = undefined;
        schedule(more === true ? 0 : opts.intervalMs);
      });
  };
  schedule(opts.firstDelayMs ?? 0);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    if (opts.stopWaitMs === undefined) await running;
    else await settleWithin(running, opts.stopWaitMs);
  };
}
