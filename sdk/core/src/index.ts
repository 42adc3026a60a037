// @onboard/core: the client library for an app's frontend (browsers, Node 20+, React Native) and, through the
// low-level client, for backends.
//   - createOnboard({ publishableKey, baseUrl }): sign-in flows, the session and its DPoP key, state machines for
//     auth, balances, history and transactions (./onboard.ts).
//   - createOnboardClient: one typed call per operation, outcomes instead of exceptions (./lowLevel.ts).
//   - tx.*: sponsored transactions as outcomes; distribution.*: token distribution rules and claims as outcomes;
//     kyc.*: identity verification (providers, a session, its decision) as outcomes; verifyWebhook*: webhook
//     signatures for backends.
export { createOnboard, Onboard, type OnboardOptions } from './onboard.js';
export { createOnboardClient, OnboardConfigError, type OnboardClientOptions } from './lowLevel.js';
export { AUTH_ERROR_CODES, FlowError, type AuthErrorCode } from './errors.js';
export {
  type SignInFlow,
  createPkce,
  LOGIN_TIMEOUT_MS,
  type AuthState,
  type AuthStep,
  type OAuthOptions,
  type OAuthProvider,
} from './auth.js';
export type { BalanceState, HistoryParams, HistoryState, TxState } from './data.js';
export { REFRESH_LEAD_MS } from './session.js';
export type { SessionInfo, SessionUser } from './userSession.js';
export { createStore, type Listener, type Readable, type Store } from './store.js';
export { browserStorage, defaultStorage, memoryStorage, type StorageAdapter } from './storage.js';
export { defaultKeyStore, indexedDbKeyStore, memoryKeyStore, type DpopKeyStore } from './keyStore.js';
export {
  DEFAULT_RETRY,
  DEFAULT_TIMEOUT_MS,
  RequestTimeoutError,
  type RetryPolicy,
  type TransportOptions,
} from './transport.js';
export { createDpopSigner, type DpopSigner } from './dpop.js';
export type { WalletAdapter } from './walletAdapter.js';
export { toOutcome, type ErrorCode, type Failure, type Outcome, type Success } from './outcome.js';
export type { Network, OnboardClient, SessionHandle, SessionTokensLike } from './types.js';
/** Sponsored transactions as `{ status: 'built' | 'success' | 'pending' | 'error' }` outcomes: tx.build, tx.run... */
export * as tx from './transactions.js';
/** Token distribution as `{ status: 'listed' | 'success' | 'pending' | 'error' }` outcomes: distribution.listRules... */
export * as distribution from './distribution.js';
/** Identity verification as `{ status: 'listed' | 'started' | 'approved' | 'expired' | 'error' ... }` outcomes: kyc.start... */
export * as kyc from './kyc.js';
/** Fiat on- and off-ramps as `{ status: 'listed' | 'quoted' | 'started' | 'final' | 'out_of_range' | 'error' ... }` outcomes: ramps.quote... */
export * as ramps from './ramps.js';
export {
  verifyServiceSignature,
  verifyWebhook,
  verifyWebhookWithPublicKey,
  type WebhookEvent,
  type WebhookVerification,
} from './webhooks.js';
