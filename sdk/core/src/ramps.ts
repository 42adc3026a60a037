// Fiat on- and off-ramps for the client library: the app's ramp providers, a quote priced by one of them, the ramp
// started from the quote, a ramp read back, and a wait that polls it until it is completed, failed or expired. Each
// answers an outcome and never throws, like the KYC helpers (./kyc.ts): an API error, a network failure and a
// malformed answer all come back as `{ status: 'error', code, httpStatus, message }`. The refusals a user can act on
// have outcomes of their own, with what the screen needs: `out_of_range` (the bound crossed), `kyc_required` (where
// to verify), `quote_expired` (quote again), `insufficient_balance`, `onchain_failed` (Stellar's result code) and
// `upstream_error` (the provider failed: retry). Amounts stay the contract's decimal strings, never numbers.
// Import as `import { ramps } from '@onboard/core'` and call `ramps.quote(onboard.api, { ... })`.
import type { RampDirection, RampQuote, RampTransaction } from '../../../generated/client/types.gen.js';
import {
  errorOutcome,
  invalidOutcome,
  isRecord,
  isTransient,
  isWebUrl,
  pause,
  type ErrorOutcome,
  type Failure,
} from './outcome.js';
import type { OnboardClient } from './types.js';

export type { RampDirection, RampQuote, RampTransaction };

/** The operations these helpers call (an OnboardClient, or a stand-in with the same methods). */
export type RampsClient = Pick<
  OnboardClient,
  'listRampProviders' | 'createRampQuote' | 'startRamp' | 'getRampTransaction'
>;

/** A ramp's progress: `completed`, `failed` and `expired` are final; the others change as the ramp moves on. */
export type RampStatus = RampTransaction['status'];

/** The statuses after which a ramp no longer changes. */
export const FINAL_RAMP_STATUSES: readonly RampStatus[] = ['completed', 'failed', 'expired'];

/** A ramp that no longer changes. */
export type FinalRampTransaction = RampTransaction & { status: 'completed' | 'failed' | 'expired' };

/** A ramp provider of the app on the key's network, with the directions, fiat currencies and assets it ramps. */
export interface RampProvider {
  providerId: string;
  name: string;
  directions: RampDirection[];
  fiatCurrencies: string[];
  /** `native` or CODE:ISSUER. */
  assets: string[];
}

export interface RampProvidersListed {
  status: 'listed';
  providers: RampProvider[];
}

/** A priced offer, valid until `quote.expiresAt` (15 minutes): start it with `start(client, { quoteId })`. */
export interface RampQuoted {
  status: 'quoted';
  quote: RampQuote;
}

/** A ramp the service started (or, for a quote already started, the same ramp again). */
export interface RampStarted {
  status: 'started';
  transaction: RampTransaction;
  /** The key the start was sent with. */
  idempotencyKey: string;
}

/** One read of a ramp. */
export interface RampFetched {
  status: 'fetched';
  transaction: RampTransaction;
}

/** waitForFinal's answer once the ramp is completed, failed or expired. */
export interface RampFinal {
  status: 'final';
  transaction: FinalRampTransaction;
}

/** waitForFinal stopped because its signal was aborted. */
export interface RampWaitAborted {
  status: 'aborted';
  txId: string;
}

/** waitForFinal reached its deadline before the ramp was final: `transaction` is the last read, if any succeeded. */
export interface RampWaitTimedOut {
  status: 'timed_out';
  txId: string;
  transaction?: RampTransaction;
}

/** What every refusal carries, whatever its outcome: the catalogue code, the HTTP status and the service's message. */
interface RampRefusal {
  code: Failure['code'];
  httpStatus: number;
  message?: string;
  /** On a start: the key it was sent with (start again with it and the ramp is not started twice). */
  idempotencyKey?: string;
}

/** SDK_RAMPS_AMOUNT_OUT_OF_RANGE: the amount is below the route's minimum or above its maximum. */
export interface RampOutOfRange extends RampRefusal {
  status: 'out_of_range';
  /** Which bound was crossed. */
  limit: 'min' | 'max';
  /** The bound, a decimal string in `limitCurrency` ("Minimum 20 USD"). */
  limitAmount: string;
  limitCurrency: string;
}

/** SDK_RAMPS_KYC_REQUIRED: the provider needs the user's identity verified first, at `kycUrl` (an http(s) page). */
export interface RampKycRequired extends RampRefusal {
  status: 'kyc_required';
  kycUrl: string;
}

/** SDK_RAMPS_QUOTE_EXPIRED: the quote's 15 minutes are over; quote again. */
export interface RampQuoteExpired extends RampRefusal {
  status: 'quote_expired';
}

/** SDK_RAMPS_INSUFFICIENT_BALANCE: the wallet cannot cover the off-ramp; nothing moved. */
export interface RampInsufficientBalance extends RampRefusal {
  status: 'insufficient_balance';
}

/** SDK_RAMPS_ONCHAIN_SUBMIT_FAILED: the network refused the off-ramp's payment; nothing moved. */
export interface RampOnchainFailed extends RampRefusal {
  status: 'onchain_failed';
  /** Stellar's result code as the service gives it (`txInsufficientBalance`: no XLM for the fee), when it does. */
  resultCode?: string;
}

/** The provider failed upstream (SDK_RAMPS_ANCHOR_ERROR, _BRIDGE_ERROR, _ETHERFUSE_ERROR): the same call may pass. */
export interface RampUpstreamError extends RampRefusal {
  status: 'upstream_error';
  retryable: true;
}

/**
 * The error outcome, the other helpers' shape: `code` is a catalogue code (SDK_RAMPS_PROVIDER_NOT_FOUND,
 * SDK_RAMPS_QUOTE_NOT_FOUND, SDK_RAMPS_TX_NOT_FOUND, SDK_RAMPS_ASSET_NOT_ENABLED, SDK_RAMPS_WALLET_UNSUPPORTED,
 * VALIDATION_ERROR...) or NETWORK_ERROR / INVALID_RESPONSE; a start's error carries its Idempotency-Key.
 */
export type RampError = ErrorOutcome;

/** Every way a ramps call can fail: the specific refusals, then the generic error outcome. */
export type RampFailure =
  | RampOutOfRange
  | RampKycRequired
  | RampQuoteExpired
  | RampInsufficientBalance
  | RampOnchainFailed
  | RampUpstreamError
  | RampError;

export type RampProvidersResult = RampProvidersListed | RampError;
export type RampQuoteResult = RampQuoted | RampOutOfRange | RampKycRequired | RampUpstreamError | RampError;
export type RampStartResult =
  | RampStarted
  | RampKycRequired
  | RampQuoteExpired
  | RampInsufficientBalance
  | RampOnchainFailed
  | RampUpstreamError
  | RampError;
export type RampGetResult = RampFetched | RampUpstreamError | RampError;
export type RampWaitResult = RampFinal | RampWaitAborted | RampWaitTimedOut | RampUpstreamError | RampError;

export interface RampQuoteInput {
  /** One of the app's providers (listProviders). */
  providerId: string;
  /** `on`: fiat in, the asset to the wallet; `off`: the asset out of the wallet, fiat paid out. */
  direction: RampDirection;
  /** ISO 4217, e.g. `USD`. */
  fiatCurrency: string;
  /** `native` or CODE:ISSUER. */
  asset: string;
  /** A decimal string (up to 7 decimals), never a number: money is not rounded on its way. */
  amount: string;
  /** Whether `amount` is in `fiatCurrency` (the default) or in `asset`. */
  amountIn?: 'fiat' | 'crypto';
}

export interface RampStartInput {
  quoteId: string;
  /**
   * Idempotency-Key of the start; a UUID is generated when omitted. A retry with the same key answers the first
   * start: pass back the key of an error outcome when retrying after an ambiguous NETWORK_ERROR.
   */
  idempotencyKey?: string;
}

export interface RampWaitOptions {
  /** Pause between reads (default 5 000 ms; at least 250). */
  intervalMs?: number;
  /** How long to wait in all (default 600 000 ms, ten minutes): then the answer is `{ status: 'timed_out' }`. */
  timeoutMs?: number;
  /** Stops the wait (and a read in flight): the answer is then `{ status: 'aborted' }`. */
  signal?: AbortSignal;
  /** Called with each read that is not final yet (to show `awaiting_deposit` turning into `processing`). */
  onUpdate?: (transaction: RampTransaction) => void;
}

export const DEFAULT_RAMP_POLL_INTERVAL_MS = 5_000;
export const DEFAULT_RAMP_WAIT_TIMEOUT_MS = 600_000;
const MIN_POLL_INTERVAL_MS = 250;

const UPSTREAM_CODES: readonly string[] = [
  'SDK_RAMPS_ANCHOR_ERROR',
  'SDK_RAMPS_BRIDGE_ERROR',
  'SDK_RAMPS_ETHERFUSE_ERROR',
];
const STATUSES: readonly string[] = [
  'pending_kyc',
  'awaiting_deposit',
  'awaiting_signature',
  'processing',
  'completed',
  'failed',
  'expired',
];
const QUOTE_REFUSALS = ['out_of_range', 'kyc_required', 'upstream_error'] as const;
const START_REFUSALS = [
  'kyc_required',
  'quote_expired',
  'insufficient_balance',
  'onchain_failed',
  'upstream_error',
] as const;
const DEPOSIT_METHODS: readonly string[] = ['ach', 'wire', 'sepa', 'spei', 'other'];
// The contract's Amount: a decimal string. Checked so that a number (a float) in an answer is refused, not shown.
const AMOUNT = /^(0|[1-9][0-9]{0,11})(\.[0-9]{1,7})?$/;

const isString = (value: unknown): value is string => typeof value === 'string';
const isAmount = (value: unknown): value is string => isString(value) && AMOUNT.test(value);
const isDirection = (value: unknown): value is RampDirection => value === 'on' || value === 'off';
const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every(isString);

/**
 * A refusal as its outcome: the specific ones with their fields (checked: a KYC refusal without a web `kycUrl`, or a
 * range refusal without its bound, is an INVALID_RESPONSE), anything else as the generic error outcome.
 */
function classify(failure: Failure, idempotencyKey?: string): RampFailure {
  const base = (): RampRefusal => ({
    code: failure.code,
    httpStatus: failure.status,
    ...(failure.message !== undefined ? { message: failure.message } : {}),
    ...(idempotencyKey ? { idempotencyKey } : {}),
  });
  const body = failure.body ?? {};
  switch (failure.code) {
    case 'SDK_RAMPS_AMOUNT_OUT_OF_RANGE': {
      const { limit, limitAmount, limitCurrency } = body;
      if ((limit !== 'min' && limit !== 'max') || !isAmount(limitAmount) || !isString(limitCurrency))
        return invalidOutcome('an amount refusal without limit, limitAmount or limitCurrency', failure.status);
      return { status: 'out_of_range', ...base(), limit, limitAmount, limitCurrency };
    }
    case 'SDK_RAMPS_KYC_REQUIRED':
      if (!isWebUrl(body.kycUrl))
        return invalidOutcome('a KYC refusal whose kycUrl is not a web address', failure.status, idempotencyKey);
      return { status: 'kyc_required', ...base(), kycUrl: body.kycUrl };
    case 'SDK_RAMPS_QUOTE_EXPIRED':
      return { status: 'quote_expired', ...base() };
    case 'SDK_RAMPS_INSUFFICIENT_BALANCE':
      return { status: 'insufficient_balance', ...base() };
    case 'SDK_RAMPS_ONCHAIN_SUBMIT_FAILED': {
      // The contract puts it in `details`; a top-level one (TX_SUBMIT_FAILED's place) is taken too.
      const resultCode = failure.details?.resultCode ?? body.resultCode;
      return { status: 'onchain_failed', ...base(), ...(isString(resultCode) ? { resultCode } : {}) };
    }
    default:
      if (UPSTREAM_CODES.includes(failure.code)) return { status: 'upstream_error', ...base(), retryable: true };
      return errorOutcome(failure, idempotencyKey);
  }
}

type RampRefusalKind = Exclude<RampFailure['status'], 'error'>;

/**
 * A failed call as its outcome, among the refusals `kinds` this call can answer; any other (a code the contract does
 * not give this operation) is the generic error outcome, so each call's result type holds what it can answer.
 */
function refusalOf<K extends RampRefusalKind>(
  failure: Failure,
  kinds: readonly K[],
  idempotencyKey?: string,
): Extract<RampFailure, { status: K }> | RampError {
  const out = classify(failure, idempotencyKey);
  if (out.status === 'error') return out;
  if ((kinds as readonly string[]).includes(out.status)) return out as Extract<RampFailure, { status: K }>;
  return errorOutcome(failure, idempotencyKey);
}

function providerOf(value: unknown): RampProvider | undefined {
  if (!isRecord(value)) return undefined;
  const { providerId, name, directions, fiatCurrencies, assets } = value;
  if (!isString(providerId) || !isString(name)) return undefined;
  if (!Array.isArray(directions) || directions.length === 0 || !directions.every(isDirection)) return undefined;
  if (!isStringList(fiatCurrencies) || !isStringList(assets)) return undefined;
  return { providerId, name, directions: [...directions], fiatCurrencies: [...fiatCurrencies], assets: [...assets] };
}

function quoteOf(value: unknown): RampQuote | undefined {
  if (!isRecord(value)) return undefined;
  const { quoteId, providerId, direction, fiatCurrency, asset, expiresAt } = value;
  const { fiatAmount, cryptoAmount, fee, minAmount, maxAmount } = value;
  if (!isString(quoteId) || !isString(providerId) || !isDirection(direction)) return undefined;
  if (!isString(fiatCurrency) || !isString(asset) || !isString(expiresAt)) return undefined;
  if (!isAmount(fiatAmount) || !isAmount(cryptoAmount) || !isAmount(fee)) return undefined;
  if (!isAmount(minAmount) || !isAmount(maxAmount)) return undefined;
  const quote = { quoteId, providerId, direction, fiatAmount, fiatCurrency, cryptoAmount, asset, fee };
  return { ...quote, minAmount, maxAmount, expiresAt };
}

type DepositInstructions = NonNullable<RampTransaction['depositInstructions']>;

function depositOf(value: unknown): DepositInstructions | undefined {
  if (!isRecord(value)) return undefined;
  const { method, amount, currency, reference, details, expiresAt } = value;
  if (!isString(method) || !DEPOSIT_METHODS.includes(method)) return undefined;
  if (!isAmount(amount) || !isString(currency) || !isString(reference)) return undefined;
  if (!isRecord(details) || !Object.values(details).every(isString)) return undefined;
  if (expiresAt !== undefined && !isString(expiresAt)) return undefined;
  return {
    method: method as DepositInstructions['method'],
    amount,
    currency,
    reference,
    details: { ...(details as Record<string, string>) },
    ...(expiresAt !== undefined ? { expiresAt } : {}),
  };
}

type PendingSignature = NonNullable<RampTransaction['pendingSignature']>;

function pendingSignatureOf(value: unknown): PendingSignature | undefined {
  if (!isRecord(value) || !isString(value.unsignedXdr) || !isString(value.action)) return undefined;
  return { unsignedXdr: value.unsignedXdr, action: value.action };
}

const isStatus = (value: unknown): value is RampStatus => isString(value) && STATUSES.includes(value);

/** A ramp transaction as the contract has it, or a sentence saying what it lacks. */
function transactionOf(value: unknown): RampTransaction | string {
  if (!isRecord(value)) return 'a ramp answer without content';
  const { txId, provider, status, quoteId, direction, asset, fiatCurrency, createdAt, updatedAt } = value;
  const { cryptoAmount, fiatAmount, kycUrl, pendingSignature, depositInstructions, stellarTxHash } = value;
  if (!isStatus(status)) return `unknown ramp status ${String(status)}`;
  if (!isString(txId) || !isString(provider) || !isString(quoteId) || !isDirection(direction))
    return 'a ramp without txId, provider, quoteId or direction';
  if (!isString(asset) || !isString(fiatCurrency) || !isString(createdAt) || !isString(updatedAt))
    return 'a ramp without asset, fiatCurrency, createdAt or updatedAt';
  if (!isAmount(cryptoAmount) || !isAmount(fiatAmount)) return 'a ramp whose amounts are not decimal strings';
  if (kycUrl !== undefined && !isWebUrl(kycUrl)) return 'a ramp whose kycUrl is not a web address';
  const signature = pendingSignature === undefined ? undefined : pendingSignatureOf(pendingSignature);
  if (pendingSignature !== undefined && !signature) return 'a ramp whose pendingSignature lacks unsignedXdr or action';
  const deposit = depositInstructions === undefined ? undefined : depositOf(depositInstructions);
  if (depositInstructions !== undefined && !deposit) return 'a ramp with malformed depositInstructions';
  if (stellarTxHash !== undefined && stellarTxHash !== null && !isString(stellarTxHash))
    return 'a ramp whose stellarTxHash is not a hash';
  return {
    txId,
    provider,
    status,
    quoteId,
    direction,
    asset,
    cryptoAmount,
    fiatAmount,
    fiatCurrency,
    ...(kycUrl !== undefined ? { kycUrl } : {}),
    ...(signature ? { pendingSignature: signature } : {}),
    ...(deposit ? { depositInstructions: deposit } : {}),
    // Absent and null mean the same (not submitted yet): always null, so callers test one value.
    stellarTxHash: stellarTxHash ?? null,
    createdAt,
    updatedAt,
  };
}

/** Whether the ramp no longer changes (completed, failed or expired). */
export function isFinal(transaction: RampTransaction): transaction is FinalRampTransaction {
  return FINAL_RAMP_STATUSES.includes(transaction.status);
}

/** The app's ramp providers on the key's network, with the directions, fiat currencies and assets each ramps. */
export async function listProviders(client: RampsClient): Promise<RampProvidersResult> {
  const out = await client.listRampProviders();
  if (!out.ok) return errorOutcome(out);
  const c: unknown = out.content;
  if (!isRecord(c) || !Array.isArray(c.providers))
    return invalidOutcome('a providers list without providers', out.status);
  const providers: RampProvider[] = [];
  for (const item of c.providers) {
    const provider = providerOf(item);
    if (!provider)
      return invalidOutcome('a provider without providerId, name, directions, fiatCurrencies or assets', out.status);
    providers.push(provider);
  }
  return { status: 'listed', providers };
}

/**
 * Prices an on- or off-ramp with a provider: `{ status: 'quoted', quote }`, valid until `quote.expiresAt`. Refusals:
 * `out_of_range` (with the bound crossed), `kyc_required` (with the `kycUrl` to send the user to), `upstream_error`
 * (the provider failed; retry), or an error outcome (SDK_RAMPS_PROVIDER_NOT_FOUND, SDK_RAMPS_ASSET_NOT_ENABLED,
 * SDK_RAMPS_PROVIDER_NOT_CONFIGURED, VALIDATION_ERROR, a network failure...).
 */
export async function quote(client: RampsClient, input: RampQuoteInput): Promise<RampQuoteResult> {
  const out = await client.createRampQuote({
    body: {
      providerId: input.providerId,
      direction: input.direction,
      fiatCurrency: input.fiatCurrency,
      asset: input.asset,
      amount: input.amount,
      amountIn: input.amountIn ?? 'fiat',
    },
  });
  if (!out.ok) return refusalOf(out, QUOTE_REFUSALS);
  const q = quoteOf(out.content);
  if (!q) return invalidOutcome('a quote without its ids, direction, currency, asset, amounts or expiry', out.status);
  return { status: 'quoted', quote: q };
}

/**
 * Starts the ramp a quote priced: `{ status: 'started', transaction }`, whose `transaction.status` says what comes
 * next (`awaiting_deposit` with `depositInstructions`, `pending_kyc` with `kycUrl`, `awaiting_signature` with
 * `pendingSignature`, `processing`...); then `waitForFinal`. Refusals: `quote_expired` (quote again), `kyc_required`,
 * `insufficient_balance`, `onchain_failed` (with Stellar's `resultCode`; nothing moved), `upstream_error`, or an error
 * outcome (SDK_RAMPS_QUOTE_NOT_FOUND, SDK_RAMPS_WALLET_UNSUPPORTED, SDK_RAMPS_BRIDGE_TESTNET_NOT_SETTLEABLE...).
 *
 * Idempotency: the request carries `input.idempotencyKey`, or a UUID generated for this call, so a retry of it (the
 * transport's, the DPoP nonce retry, or the caller's own with the same key) answers the first start instead of
 * starting a second ramp. Every outcome returns the key used.
 */
export async function start(client: RampsClient, input: RampStartInput): Promise<RampStartResult> {
  const idempotencyKey = input.idempotencyKey ?? crypto.randomUUID();
  const out = await client.startRamp({
    body: { quoteId: input.quoteId },
    headers: { 'Idempotency-Key': idempotencyKey },
  });
  if (!out.ok) return refusalOf(out, START_REFUSALS, idempotencyKey);
  const transaction = transactionOf(out.content);
  if (typeof transaction === 'string') return invalidOutcome(transaction, out.status, idempotencyKey);
  return { status: 'started', transaction, idempotencyKey };
}

/**
 * One read of a ramp of the session user: `{ status: 'fetched', transaction }`, or an error outcome
 * (SDK_RAMPS_TX_NOT_FOUND for another user's or an unknown id, a network failure...).
 */
export async function get(
  client: RampsClient,
  txId: string,
  options: { signal?: AbortSignal } = {},
): Promise<RampGetResult> {
  const out = await client.getRampTransaction({
    path: { rampTxId: txId },
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (!out.ok) return refusalOf(out, ['upstream_error']);
  const transaction = transactionOf(out.content);
  if (typeof transaction === 'string') return invalidOutcome(transaction, out.status);
  return { status: 'fetched', transaction };
}

/** A failed read that may pass if asked again: no answer, 429, 5xx, or the provider failing upstream. */
const mayPass = (out: RampUpstreamError | RampError): boolean =>
  out.status === 'upstream_error' || isTransient({ status: out.httpStatus });

/**
 * Reads the ramp at once, then every `intervalMs` (default 5 s), until it is `completed`, `failed` or `expired`:
 * `{ status: 'final', transaction }`. `timed_out` (with the last read) once `timeoutMs` (default 10 minutes) have
 * passed, a read in flight then included; `aborted` when `signal` aborts. Failures that may pass (no answer, 429,
 * 5xx, the provider failing upstream: the transport has already retried each read) are polled through, since a bank
 * transfer takes its time and a blip meanwhile ends nothing; any other error outcome (e.g. SDK_RAMPS_TX_NOT_FOUND)
 * answers at once.
 */
export async function waitForFinal(
  client: RampsClient,
  txId: string,
  options: RampWaitOptions = {},
): Promise<RampWaitResult> {
  const { signal, onUpdate } = options;
  const intervalMs = Math.max(MIN_POLL_INTERVAL_MS, options.intervalMs ?? DEFAULT_RAMP_POLL_INTERVAL_MS);
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_RAMP_WAIT_TIMEOUT_MS);
  // Each read stops at the caller's abort or at the deadline, so neither waits for a slow answer.
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), Math.max(0, deadline - Date.now()));
  const onAbort = () => stop.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  let last: RampTransaction | undefined;
  const aborted = (): RampWaitAborted => ({ status: 'aborted', txId });
  const timedOut = (): RampWaitTimedOut => ({ status: 'timed_out', txId, ...(last ? { transaction: last } : {}) });
  try {
    for (;;) {
      if (signal?.aborted) return aborted();
      if (Date.now() >= deadline) return timedOut();
      const out = await get(client, txId, { signal: stop.signal });
      if (signal?.aborted) return aborted();
      if (out.status === 'fetched') {
        if (isFinal(out.transaction)) return { status: 'final', transaction: out.transaction };
        last = out.transaction;
        onUpdate?.(out.transaction);
      } else if (!mayPass(out)) {
        // A read cut at the deadline is no answer: the wait timed out, it did not fail.
        return Date.now() >= deadline ? timedOut() : out;
      }
      const left = deadline - Date.now();
      if (left <= 0) return timedOut();
      await pause(Math.min(intervalMs, left), signal);
    }
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
