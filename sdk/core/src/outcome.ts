// Outcomes: what every call of the client library answers. API errors, network failures and malformed answers are
// `{ ok: false, ... }`, never thrown. Shared by the client (./index.ts) and the helpers built on it (tx.*,
// distribution.*, kyc.*), whose own error outcome `{ status: 'error', code, httpStatus, ... }` is made here too.
import type { ErrorCode } from '../../../generated/client/types.gen.js';

export type { ErrorCode };

export type Success<T> = { ok: true; status: number; code: string; content: T };
export type Failure = {
  ok: false;
  /** HTTP status; 0 when no answer arrived. */
  status: number;
  /**
   * A catalogue code, or one for a failure the client saw itself: NETWORK_ERROR, INVALID_RESPONSE, and for a wallet
   * in the user's own custody WALLET_SIGN_FAILED (the wallet did not sign) or WALLET_NOT_CONNECTED (no adapter).
   */
  code: ErrorCode | 'NETWORK_ERROR' | 'INVALID_RESPONSE' | 'WALLET_SIGN_FAILED' | 'WALLET_NOT_CONNECTED';
  message?: string;
  details?: Record<string, unknown>;
  /** The whole error body, for code-specific fields (applicationId, resultCode, limitAmount, kycUrl...). */
  body?: Record<string, unknown>;
};
export type Outcome<T> = Success<T> | Failure;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The helpers' error outcome (tx.*, distribution.*, kyc.*): `code` is a catalogue code, or NETWORK_ERROR /
 * INVALID_RESPONSE for failures the client saw itself.
 */
export interface ErrorOutcome {
  status: 'error';
  /** A catalogue code, or NETWORK_ERROR / INVALID_RESPONSE for failures the client saw itself. */
  code: Failure['code'];
  /** HTTP status; 0 when no answer arrived (then the request may or may not have been processed). */
  httpStatus: number;
  message?: string;
  /** Stellar's result code in Horizon style (e.g. `op_underfunded`), on TX_SUBMIT_FAILED. */
  resultCode?: string;
  details?: Record<string, unknown>;
  /** The key the failed request carried: retry with it and a request that did go through is not repeated. */
  idempotencyKey?: string;
}

/** A failed call as an error outcome, with Stellar's `resultCode` when the answer has one and the key it was sent with. */
export function errorOutcome(failure: Failure, idempotencyKey?: string): ErrorOutcome {
  const resultCode = failure.body?.resultCode;
  return {
    status: 'error',
    code: failure.code,
    httpStatus: failure.status,
    ...(failure.message !== undefined ? { message: failure.message } : {}),
    ...(typeof resultCode === 'string' ? { resultCode } : {}),
    ...(failure.details ? { details: failure.details } : {}),
    ...(idempotencyKey ? { idempotencyKey } : {}),
  };
}

/** An answer the contract does not allow, as an INVALID_RESPONSE error outcome. */
export function invalidOutcome(message: string, httpStatus: number, idempotencyKey?: string): ErrorOutcome {
  return {
    status: 'error',
    code: 'INVALID_RESPONSE',
    httpStatus,
    message,
    ...(idempotencyKey ? { idempotencyKey } : {}),
  };
}

/** A read that may succeed if asked again: no answer, rate limited, or a server-side fault. */
export function isTransient(failure: Pick<Failure, 'status'>): boolean {
  return failure.status === 0 || failure.status === 429 || failure.status >= 500;
}

/** Turns a generated-client result (or a thrown fetch failure) into an Outcome. */
export async function toOutcome<T>(
  pending: Promise<{ data?: unknown; error?: unknown; response?: Response }>,
): Promise<Outcome<T>> {
  let result: { data?: unknown; error?: unknown; response?: Response };
  try {
    result = await pending;
  } catch (err) {
    return { ok: false, status: 0, code: 'NETWORK_ERROR', message: err instanceof Error ? err.message : String(err) };
  }
  if (!result.response) {
    // The generated client reports a failed fetch as an error without a response.
    const error = result.error;
    return {
      ok: false,
      status: 0,
      code: 'NETWORK_ERROR',
      message: error instanceof Error ? error.message : String(error),
    };
  }
  const status = result.response.status;
  const body = result.response?.ok ? result.data : result.error;
  if (result.response?.ok && isRecord(body) && body.success === true && typeof body.code === 'string') {
    return { ok: true, status, code: body.code, content: body.content as T };
  }
  if (!result.response?.ok && isRecord(body) && body.success === false && typeof body.code === 'string') {
    return {
      ok: false,
      status,
      code: body.code as ErrorCode,
      ...(typeof body.message === 'string' ? { message: body.message } : {}),
      ...(isRecord(body.details) ? { details: body.details } : {}),
      body,
    };
  }
  return {
    ok: false,
    status,
    code: 'INVALID_RESPONSE',
    message: `unexpected ${status} answer without the Onboard envelope`,
  };
}

/** Only a web page may be opened for the user: a `javascript:` or other URL in an answer is refused. */
export function isWebUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}

/** Resolves after `ms`, or at once when `signal` aborts (the pollers' wait). */
export function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
