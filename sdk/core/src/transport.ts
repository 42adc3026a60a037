// The client's transport: a time limit on every attempt, and retries only where a repeat cannot do anything twice
// (GET and HEAD, or a request carrying an Idempotency-Key, which the service answers once per key). A request that
// never got an answer is reported by the caller's outcome as NETWORK_ERROR (outcome.ts); it is not thrown further.

export interface RetryPolicy {
  /** Further attempts after the first (default 2). */
  attempts: number;
  /** Base of the jittered exponential pause between attempts (default 300 ms). */
  baseDelayMs: number;
}

export interface TransportOptions {
  /** Time limit of one attempt (default 10 000 ms). */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_RETRY: RetryPolicy = { attempts: 2, baseDelayMs: 300 };
/** A Retry-After longer than this is not waited for: the caller gets the 429 or 503 and decides. */
const MAX_RETRY_AFTER_MS = 5_000;

/** Answers that say "not processed, try again later". */
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

export class RequestTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'RequestTimeoutError';
  }
}

/** True when repeating the request cannot cause a second effect. */
export function isSafeToRetry(request: Request): boolean {
  return request.method === 'GET' || request.method === 'HEAD' || request.headers.has('idempotency-key');
}

function retryAfterMs(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Full jitter (a random pause up to the exponential bound), so that many clients do not retry in step. */
function backoffMs(policy: RetryPolicy, attempt: number): number {
  return Math.random() * policy.baseDelayMs * 2 ** attempt;
}

/**
 * One attempt under a time limit. The caller's own abort is kept apart from the time limit: a caller's abort is
 * never retried, a time-out is (when safe).
 */
async function attemptOnce(inner: typeof fetch, request: Request, timeoutMs: number): Promise<Response> {
  const timer = new AbortController();
  const timeout = setTimeout(() => timer.abort(new RequestTimeoutError(timeoutMs)), timeoutMs);
  const signal = AbortSignal.any([request.signal, timer.signal]);
  // Settles on abort even when `inner` (an app's own fetch) ignores the signal.
  const aborted = new Promise<never>((_, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
  });
  try {
    return await Promise.race([inner(new Request(request, { signal })), aborted]);
  } catch (err) {
    if (timer.signal.aborted && !request.signal.aborted) throw new RequestTimeoutError(timeoutMs);
    throw err;
  } finally {
    clearTimeout(timeout);
  }
}

/** Wraps `inner` (which signs each attempt anew, e.g. dpopFetch) with time limits and safe retries. */
export function transportFetch(inner: typeof fetch, options: TransportOptions = {}): typeof fetch {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  return async (input, init) => {
    const original = new Request(input, init);
    const retryable = isSafeToRetry(original);
    for (let attempt = 0; ; attempt++) {
      const last = !retryable || attempt >= policy.attempts;
      let response: Response;
      try {
        response = await attemptOnce(inner, original.clone(), timeoutMs);
      } catch (err) {
        if (last || original.signal.aborted) throw err;
        await sleep(backoffMs(policy, attempt));
        continue;
      }
      if (last || !RETRYABLE_STATUSES.has(response.status)) return response;
      const wait = retryAfterMs(response) ?? backoffMs(policy, attempt);
      if (wait > MAX_RETRY_AFTER_MS) return response;
      await response.body?.cancel();
      await sleep(wait);
    }
  };
}
