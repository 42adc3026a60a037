// Retries with exponential backoff and full jitter (delay drawn from [0, min(max, initial x 2^attempt)]), so many
// callers refused together (TRY_AGAIN_LATER at a ledger boundary, an RPC restart) do not all come back at once.

export interface RetryPolicy {
  /** Total tries, the first included. */
  attempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
}

/** Enough to ride out a busy source account (one transaction per ledger: ~5 s) and a short RPC outage. */
export const DEFAULT_RETRY: RetryPolicy = { attempts: 6, initialDelayMs: 250, maxDelayMs: 4000 };

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt` until it returns, throws an error `retryable` rejects, or the attempts run out (the last error is
 * thrown). `attempt` receives the try number, from 0.
 */
export async function withRetry<T>(
  policy: RetryPolicy,
  retryable: (err: unknown) => boolean,
  attempt: (n: number) => Promise<T>,
  wait: (ms: number) => Promise<void> = sleep,
): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt(n);
    } catch (err) {
      if (n + 1 >= policy.attempts || !retryable(err)) throw err;
      await wait(Math.random() * Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** n));
    }
  }
}
