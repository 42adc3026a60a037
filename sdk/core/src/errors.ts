// The client library's two kinds of failure. A flow step called out of order is a programming error and the one
// thing thrown (FlowError, code INVALID_FLOW). Everything else (a wrong code, a network failure, an expired session)
// is a state or an outcome carrying one of the AUTH_ERROR_CODES, so an app shows it instead of catching it.
import type { Failure } from './outcome.js';

export class FlowError extends Error {
  readonly code = 'INVALID_FLOW' as const;
  constructor(message: string) {
    super(message);
    this.name = 'FlowError';
  }
}

/** The codes of an auth state `{ step: 'error' }` (and of a signed-out state's `reason`). */
export const AUTH_ERROR_CODES = new Set([
  /** The session ended: refresh token expired, reused elsewhere, or revoked (sign in again). */
  'SESSION_EXPIRED',
  /** A stored session could not be read back (a corrupt or foreign record). */
  'SESSION_INVALID',
  /** The user signed out (here or in another tab). */
  'SIGNED_OUT',
  'EMAIL_SEND_FAILED',
  /** The code is wrong, expired or used up. */
  'EMAIL_CODE_INVALID',
  'EMAIL_VERIFY_FAILED',
  /** The provider is not configured for this app (Google or GitHub without credentials). */
  'AUTH_PROVIDER_NOT_CONFIGURED',
  /** The app turned this sign-in method off (dashboard, Settings). */
  'AUTH_PROVIDER_DISABLED',
  /** The user closed the provider's window or refused. */
  'OAUTH_CANCELLED',
  /** The browser blocked the provider's popup (call the flow from a click). */
  'POPUP_BLOCKED',
  /** The provider's answer could not be exchanged (state unknown or expired, provider failure). */
  'EXTERNAL_AUTH_FAILED',
  /** The wallet did not give an account (not installed, locked, the user refused). */
  'WALLET_CONNECT_FAILED',
  /** The wallet did not sign the challenge, or its signature was refused. */
  'WALLET_AUTH_FAILED',
  /** The wallet's account is already a wallet elsewhere on the service. */
  'WALLET_ACCOUNT_IN_USE',
  /** The session's wallet is the user's own, but no adapter for it was given to the client (after a reload). */
  'WALLET_NOT_CONNECTED',
  'PASSKEY_FAILED',
  /** This page's origin is not in the app's allowed origins (dashboard, Domains). */
  'ORIGIN_NOT_ALLOWED',
  'RATE_LIMITED',
  /** No answer from the service (offline, time-out). */
  'NETWORK_ERROR',
  'LOGIN_TIMEOUT',
  'TX_FAILED',
  'UNEXPECTED_ERROR',
] as const);

export type AuthErrorCode = typeof AUTH_ERROR_CODES extends Set<infer C> ? C : never;

/** The API's session codes that mean "this session is over". */
export const SESSION_ENDED_CODES: ReadonlySet<string> = new Set([
  'SDK_REFRESH_TOKEN_INVALID',
  'SDK_REFRESH_TOKEN_EXPIRED',
  'SDK_REFRESH_TOKEN_REUSED',
  'SDK_AUTH_INVALID_TOKEN',
  'SDK_SESSION_NOT_FOUND',
  'SESSION_EXPIRED',
]);

/** The auth error code for a failed API call of a sign-in flow; `fallback` names the step's own failure. */
export function authCodeOf(failure: Failure, fallback: AuthErrorCode): AuthErrorCode {
  if (failure.status === 0) return 'NETWORK_ERROR';
  switch (failure.code) {
    case 'EMAIL_CODE_INVALID':
      return 'EMAIL_CODE_INVALID';
    case 'RATE_LIMITED':
      return 'RATE_LIMITED';
    case 'ORIGIN_NOT_ALLOWED':
      return 'ORIGIN_NOT_ALLOWED';
    case 'OAUTH_PROVIDER_NOT_CONFIGURED':
      return 'AUTH_PROVIDER_NOT_CONFIGURED';
    case 'AUTH_PROVIDER_DISABLED':
      return 'AUTH_PROVIDER_DISABLED';
    case 'WALLET_ACCOUNT_IN_USE':
      return 'WALLET_ACCOUNT_IN_USE';
    case 'OAUTH_STATE_INVALID':
    case 'OAUTH_EXCHANGE_FAILED':
      return 'EXTERNAL_AUTH_FAILED';
    case 'WALLET_AUTH_FAILED':
      return 'WALLET_AUTH_FAILED';
    default:
      return SESSION_ENDED_CODES.has(failure.code) ? 'SESSION_EXPIRED' : fallback;
  }
}

/** A message for people, from the API's own message when it has one. */
export function messageOf(failure: Failure): string {
  if (failure.status === 0) return failure.message ?? 'No answer from the service; check the connection';
  return failure.message ?? `The service answered ${failure.code}`;
}
