// The ramp provider layer: one interface every fiat on- and off-ramp provider implements, and the vocabulary the
// service and the providers share. A provider prices a route (quote), starts a ramp from a quote (start), reports its
// progress (status, and an inbound webhook where it sends them), and says when it is ready to receive the asset of an
// off-ramp (`payment`): the service, not the provider, then builds that payment from the user's wallet, wraps it in the
// app's fee-bump and submits it (rampLeg.ts), so a provider never holds a key of the service.
//
// A provider refuses with a RampRefusal (below): the service turns it into the contract's SDK_RAMPS_* code. Anything
// else a provider throws (a network error, an answer that does not parse) is an upstream failure: the provider's
// `upstreamCode` (502, retryable).
//
// Providers: `sandbox` (sandbox.ts: settles on localnet against a local fiat ledger), `sep24` (a SEP-24/SEP-12
// anchor), `etherfuse`, `bridge`; registered in registry.ts.
import type { NetworkName } from '../../config';
import type { App } from '../apps/store';
import type { Deps } from '../deps';
import type { WalletRecord } from '../wallets/store';

export type RampDirection = 'on' | 'off';
export type RampStatus =
  'pending_kyc' | 'awaiting_deposit' | 'awaiting_signature' | 'processing' | 'completed' | 'failed' | 'expired';
export const FINAL_RAMP_STATUSES: readonly RampStatus[] = ['completed', 'failed', 'expired'];

/** A quote is valid this long (the contract's 15 minutes). */
export const QUOTE_VALIDITY_MS = 15 * 60_000;

export type RampUpstreamCode = 'SDK_RAMPS_ANCHOR_ERROR' | 'SDK_RAMPS_BRIDGE_ERROR' | 'SDK_RAMPS_ETHERFUSE_ERROR';

/** What a provider may use: the service's configuration, database and clock (the user's key only via signChallenge). */
export type RampDeps = Pick<Deps, 'db' | 'kms' | 'clock' | 'log' | 'stellar' | 'ramps' | 'kyc' | 'secrets'>;

/** A route a provider offers: one direction, one fiat currency, one Stellar asset (`CODE:ISSUER`). */
export interface RampRoute {
  direction: RampDirection;
  fiatCurrency: string;
  asset: string;
}

/** Who is ramping. */
export interface RampUser {
  userId: string;
  email: string | null;
  wallet: WalletRecord;
  /** The user's status with the app's KYC (src/domain/kyc): providers that rely on it read it here. */
  kycStatus: 'none' | 'pending' | 'approved' | 'rejected';
}

/** Everything a provider call gets. */
export interface RampCall {
  app: App;
  network: NetworkName;
  /** The app's credentials for the provider, unsealed (empty for a provider that takes none). */
  credentials: Record<string, string>;
  now: Date;
  user: RampUser;
  /**
   * Signs a SEP-10 challenge with the user's custodial key after checking it is one (never a transaction that could
   * move funds); refuses an external wallet with SDK_RAMPS_WALLET_UNSUPPORTED.
   */
  signChallenge(
    challengeXdr: string,
    networkPassphrase: string,
    homeDomain: string,
    serverAccount: string,
    webAuthDomain: string,
  ): Promise<string>;
}

export interface RampQuoteRequest {
  direction: RampDirection;
  fiatCurrency: string;
  asset: string;
  /** A positive decimal string, in `fiatCurrency` (amountIn fiat) or in the asset (amountIn crypto). */
  amount: string;
  amountIn: 'fiat' | 'crypto';
}

/** A provider's price; amounts are decimal strings (fiat to 2 places, the asset to at most 7). */
export interface ProviderQuote {
  fiatAmount: string;
  cryptoAmount: string;
  fee: string;
  minAmount: string;
  maxAmount: string;
  /** At most QUOTE_VALIDITY_MS from now (the service caps it). */
  expiresAt: Date;
  /** The provider's own quote id, when it has one (kept to start the ramp). */
  providerRef?: string;
}

/** The stored quote a ramp starts from. */
export interface StoredQuote extends RampQuoteRequest, ProviderQuote {
  quoteId: string;
  providerId: string;
}

/** How the user pays the fiat leg (the contract's depositInstructions). */
export interface DepositInstructions {
  method: 'ach' | 'wire' | 'sepa' | 'spei' | 'other';
  amount: string;
  currency: string;
  reference: string;
  details: Record<string, string>;
  expiresAt?: Date;
}

/** Where the asset of an off-ramp goes: the service pays it from the user's wallet. */
export interface OffRampPayment {
  destination: string;
  asset: string;
  amount: string;
  memo?: { type: 'text' | 'id' | 'hash'; value: string };
  /** For a confirmation screen: "Send 40 USDC to Etherfuse". */
  action: string;
}

/** What a provider says of a ramp, at start and at each refresh. */
export interface ProviderRampState {
  status: RampStatus;
  /** The provider's own id for the ramp (its transaction, order or transfer). */
  providerRef?: string;
  kycUrl?: string;
  depositInstructions?: DepositInstructions;
  /** Off-ramp: the provider is ready for the asset; the service sends it once (status stays until it is sent). */
  payment?: OffRampPayment;
  /** The on-chain leg's hash when the provider reports it (an on-ramp's delivery). */
  stellarTxHash?: string;
  /** Why it failed, for the record (never shown with provider secrets). */
  failureReason?: string;
}

/** A ramp as stored, given back to the provider to refresh it. */
export interface StoredRamp {
  rampTxId: string;
  quote: StoredQuote;
  status: RampStatus;
  providerRef: string | null;
  /** The hash of the off-ramp payment the service sent, if it did. */
  stellarTxHash: string | null;
  createdAt: Date;
}

/** A provider's inbound webhook, checked (signature) and read: which ramp, and its new state. */
export interface RampWebhookUpdate {
  providerRef: string;
  state: ProviderRampState;
}

export interface RampProvider {
  id: 'sandbox' | 'sep24' | 'etherfuse' | 'bridge';
  name: string;
  /** Credential names the app must store to enable it (e.g. `apiKey`; `anchorDomain` for SEP-24); none for the sandbox. */
  credentialNames: readonly string[];
  /** Credentials it reads when stored, not needed to enable it (a webhook verification key, a fee setting). */
  optionalCredentialNames: readonly string[];
  /** The 502 code of an upstream failure. */
  upstreamCode: RampUpstreamCode;
  /** Whether it may be offered to an app on this service (the sandbox: testnet apps of a development service). */
  availableFor(deps: Pick<Deps, 'ramps'>, app: Pick<App, 'network'>): boolean;
  /** The routes offered for the app's enabled assets (listRampProviders). */
  routes(deps: RampDeps, call: Omit<RampCall, 'user' | 'signChallenge'>, assets: string[]): Promise<RampRoute[]>;
  quote(deps: RampDeps, call: RampCall, request: RampQuoteRequest): Promise<ProviderQuote>;
  start(deps: RampDeps, call: RampCall, ramp: StoredRamp): Promise<ProviderRampState>;
  /** The ramp's current state, read from the provider. */
  status(deps: RampDeps, call: RampCall, ramp: StoredRamp): Promise<ProviderRampState>;
  /** The off-ramp payment was sent (hash), for a provider that must be told; absent: it sees the chain itself. */
  paymentSent?(deps: RampDeps, call: RampCall, ramp: StoredRamp, txHash: string): Promise<ProviderRampState>;
  /**
   * An inbound webhook: checks its signature against the app's credentials and reads it; undefined for an event that
   * concerns no ramp. A bad signature throws RampRefusal('WEBHOOK_SIGNATURE_INVALID').
   */
  webhook?(
    deps: RampDeps,
    call: Omit<RampCall, 'user' | 'signChallenge'>,
    request: { headers: Record<string, string | undefined>; rawBody: Buffer },
  ): Promise<RampWebhookUpdate | undefined>;
}

/** A provider's refusal, turned into the contract's code by the service. */
export type RampRefusalKind =
  | { kind: 'kyc_required'; kycUrl: string; message: string }
  | { kind: 'out_of_range'; limit: 'min' | 'max'; limitAmount: string; limitCurrency: string; message: string }
  | { kind: 'route_not_offered'; message: string }
  | { kind: 'wallet_unsupported'; message: string }
  | { kind: 'not_configured'; message: string }
  | { kind: 'testnet_not_settleable'; message: string; depositInstructions?: DepositInstructions }
  | { kind: 'webhook_signature_invalid'; message: string }
  /** The provider's own quote lapsed before the ramp started (its validity can be shorter than the service's). */
  | { kind: 'quote_expired'; message: string };

export class RampRefusal extends Error {
  constructor(readonly refusal: RampRefusalKind) {
    super(refusal.message);
    this.name = 'RampRefusal';
  }
}
