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

// Ramps: what the ramp widget says, kept here so an app's own ramp screens can say the same.

/** A refusal of a ramps call as the library answers it (an outcome of ramps.quote, ramps.start, ramps.get...). */
export interface RampFailureLike {
  status: string;
  code: string;
  message?: string;
  /** On `out_of_range`: which bound was crossed, the bound and its currency. */
  limit?: 'min' | 'max';
  limitAmount?: string;
  limitCurrency?: string;
  /** On `onchain_failed`: Stellar's result code. */
  resultCode?: string;
}

const RAMP_MESSAGES: Record<string, string | undefined> = {
  SDK_RAMPS_KYC_REQUIRED: 'The provider needs to verify your identity first.',
  SDK_RAMPS_QUOTE_EXPIRED: 'This quote expired. Get a new quote to continue.',
  SDK_RAMPS_QUOTE_NOT_FOUND: 'This quote could not be found. Get a new quote.',
  SDK_RAMPS_INSUFFICIENT_BALANCE: 'Your wallet does not hold enough for this amount. Nothing was sent.',
  SDK_RAMPS_ONCHAIN_SUBMIT_FAILED: 'The network refused the payment. Nothing was sent.',
  SDK_RAMPS_PROVIDER_NOT_FOUND: 'This provider is not available for this app.',
  SDK_RAMPS_PROVIDER_NOT_CONFIGURED: 'This provider is not set up for this app yet.',
  SDK_RAMPS_ASSET_NOT_ENABLED: 'This asset cannot be bought or sold with this provider.',
  SDK_RAMPS_ROUTE_NOT_OFFERED: 'This provider does not offer this asset in this currency and direction.',
  SDK_RAMPS_WALLET_UNSUPPORTED: 'Your wallet cannot be used with this provider.',
  SDK_RAMPS_BRIDGE_TESTNET_NOT_SETTLEABLE: 'This route works only with real money (mainnet), not on the test network.',
  SDK_RAMPS_TX_NOT_FOUND: 'This transaction could not be found.',
  SDK_RAMPS_ANCHOR_ERROR: 'The provider did not answer. Try again in a moment.',
  SDK_RAMPS_BRIDGE_ERROR: 'The provider did not answer. Try again in a moment.',
  SDK_RAMPS_ETHERFUSE_ERROR: 'The provider did not answer. Try again in a moment.',
  NETWORK_ERROR: AUTH_MESSAGES.NETWORK_ERROR,
  RATE_LIMITED: AUTH_MESSAGES.RATE_LIMITED,
};

/**
 * A sentence for a failed ramps call: the bound for an amount out of range ("Minimum 20 USD."), Stellar's reason for
 * a refused payment, else the code's sentence or the service's message.
 */
export function rampMessage(failure: RampFailureLike): string {
  if (failure.status === 'out_of_range' && failure.limitAmount && failure.limitCurrency) {
    const bound = `${failure.limitAmount} ${failure.limitCurrency}`;
    return failure.limit === 'max'
      ? `The amount is above the maximum. Maximum ${bound}.`
      : `The amount is below the minimum. Minimum ${bound}.`;
  }
  if (failure.status === 'onchain_failed' && failure.resultCode === 'txInsufficientBalance')
    return 'Your wallet has no XLM left for the network fee. Nothing was sent.';
  return RAMP_MESSAGES[failure.code] ?? failure.message ?? 'The ramp failed. Try again.';
}

/** The ramp widget's words: labels, and a sentence per ramp status. */
export const rampText = {
  title: 'Buy or sell',
  direction: { on: 'Buy', off: 'Sell' },
  directionHint: {
    on: 'Pay by bank transfer; the asset arrives in your wallet.',
    off: 'Send from your wallet; the money is paid to your bank.',
  },
  status: {
    pending_kyc: 'The provider needs to verify your identity before this can go on.',
    awaiting_deposit: 'Send your payment as below. The asset arrives in your wallet once the provider has it.',
    awaiting_signature: 'Waiting for your wallet to sign the payment.',
    processing: 'Processing. This can take a few minutes; you can leave this page.',
    completed: 'Done.',
    failed: 'The provider could not complete this. Contact the app’s support if money left your account.',
    expired: 'This expired before the payment arrived. Start again to get a new quote.',
  },
  timedOut: 'Still in progress. It can take longer with bank transfers; check again later.',
  quoteExpired: 'This quote expired.',
  depositMethods: {
    ach: 'ACH bank transfer',
    wire: 'Wire transfer',
    sepa: 'SEPA transfer',
    spei: 'SPEI transfer',
    other: 'Bank transfer',
  },
  /** Labels of the deposit details the providers give; any other key is spelled out from its camelCase. */
  depositDetails: {
    bankName: 'Bank name',
    accountNumber: 'Account number',
    routingNumber: 'Routing number',
    iban: 'IBAN',
    bic: 'BIC',
    swift: 'SWIFT',
    clabe: 'CLABE',
    beneficiary: 'Beneficiary',
    beneficiaryAddress: 'Beneficiary address',
    bankAddress: 'Bank address',
  } as Record<string, string | undefined>,
} as const;
