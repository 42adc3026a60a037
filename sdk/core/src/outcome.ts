// Outcomes: what every call of the client library answers. API errors, network failures and malformed answers are
// `{ ok: false, ... }`, never thrown. Shared by the client (./index.ts) and the transaction helpers (./transactions.ts).
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
