// Readable messages for the codes the components show. Apps that write their own components can use them too.
import type { AuthErrorCode } from '@onboard/core';

const AUTH_MESSAGES: Partial<Record<AuthErrorCode, string>> = {
  EMAIL_CODE_INVALID: 'That code is not right, or it has expired. Check the latest email or ask for a new code.',
  EMAIL_SEND_FAILED: 'The code could not be sent. Check the address and try again.',
  RATE_LIMITED: 'Too many attempts. Wait a moment and try again.',
  NETWORK_ERROR: 'The service could not be reached. Check your connection and try again.',
  SESSION_EXPIRED: 'Your session ended. Please sign in again.',
  SIGNED_OUT: 'You are signed out.',
  ORIGIN_NOT_ALLOWED: 'This site is not allowed to sign in to the app (allowed origins, in the dashboard).',
  AUTH_PROVIDER_NOT_CONFIGURED: 'This sign-in method is not enabled for the app.',
  OAUTH_CANCELLED: 'Sign-in was cancelled.',
  POPUP_BLOCKED: 'The sign-in window was blocked. Allow popups for this site and try again.',
  EXTERNAL_AUTH_FAILED: 'The provider could not sign you in. Try again.',
  LOGIN_TIMEOUT: 'Sign-in took too long. Try again.',
  AUTH_PROVIDER_DISABLED: 'This sign-in method is turned off for the app.',
  WALLET_CONNECT_FAILED: 'The wallet did not connect. Unlock it, allow this site and try again.',
  WALLET_AUTH_FAILED: 'The wallet did not sign the sign-in request, or the signature was refused. Try again.',
  WALLET_ACCOUNT_IN_USE: 'This Stellar account is already used elsewhere. Choose another account in your wallet.',
  WALLET_NOT_CONNECTED: 'Reconnect your wallet to sign.',
};

/** A sentence for an auth error code (falls back to the service's message). */
export function authMessage(code: AuthErrorCode, fallback?: string): string {
  return AUTH_MESSAGES[code] ?? fallback ?? 'Something went wrong. Try again.';
}

const TX_MESSAGES: Record<string, string> = {
  tx_insufficient_balance: 'Not enough balance for this payment (a wallet keeps a minimum reserve).',
  op_underfunded: 'Not enough balance for this payment.',
  op_no_destination: 'The destination account does not exist yet.',
  op_no_trust: 'The destination cannot receive this asset (no trustline).',
  op_line_full: 'The destination cannot hold that much of this asset.',
};

/** A sentence for a failed transaction, from Stellar's result code or the service's message. */
export function txMessage(resultCode: string | undefined, fallback?: string): string {
  return (resultCode && TX_MESSAGES[resultCode]) ?? fallback ?? 'The payment failed.';
}

const KYC_MESSAGES: Record<string, string | undefined> = {
  SDK_KYC_PROVIDER_NOT_ENABLED: 'Identity verification with this provider is turned off for this app.',
  SDK_KYC_PROVIDER_NOT_FOUND: 'This identity verification provider is not available for this app.',
  SDK_KYC_VERIFICATION_NOT_FOUND: 'This verification could not be found. Start a new one.',
  SDK_KYC_SESSION_EXPIRED: 'The verification session expired before it was finished. Start a new one.',
  NETWORK_ERROR: AUTH_MESSAGES.NETWORK_ERROR,
  RATE_LIMITED: AUTH_MESSAGES.RATE_LIMITED,
};

/** A sentence for a failed identity verification call, from its code or the service's message. */
export function kycMessage(code: string, fallback?: string): string {
  return KYC_MESSAGES[code] ?? fallback ?? 'Identity verification failed. Try again.';
}
