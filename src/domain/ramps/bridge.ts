// Bridge (bridge.xyz) as a ramp provider: USD (ACH push) and EUR (SEPA) to and from the app's USDC on Stellar, built
// to Bridge's public API documentation (apidocs.bridge.xyz): KYC links, transfers, exchange rates, webhooks.
//
// One Bridge customer per user, found by the user's email among the app's KYC links (GET /v0/kyc_links?email=) or
// created with POST /v0/kyc_links; until its terms of service and KYC are approved every quote and start is refused
// with kyc_required and the hosted link. Bridge has no firm quotes: a quote is priced from its documented exchange
// rates endpoint (EUR) or 1:1 (USD to USDC, where Bridge's receipts show no exchange fee), less the app's optional
// developer fee (`developerFeePercent`, which Bridge withholds from the source amount). A ramp is one transfer:
// on-ramp from a fiat rail to `stellar`/`usdc` at the user's wallet (the user pays per the transfer's
// source_deposit_instructions); off-ramp from `stellar`/`usdc` to the user's bank account at Bridge (the service pays
// the transfer's deposit address with its blockchain_memo). Bridge sees the chain itself, so no paymentSent.
//
// Bridge settles on Stellar's public network only: on testnet an on-ramp stops at its deposit instructions
// (testnet_not_settleable carrying them) and an off-ramp is refused before anything is created.
//
// Every answer is read through the schemas in bridgeAnswers.ts: a field of the wrong type, a missing id or an amount
// that is not a decimal string is an UpstreamFailure (the 502 SDK_RAMPS_BRIDGE_ERROR), never a TypeError later.
import { createHash, createPublicKey, verify as verifySignature, type KeyObject } from 'node:crypto';
import { DEFAULT_RAMPS_SETTINGS } from '../../config';
import {
  bridgeAmount,
  bridgeFiatString,
  bridgeUnits,
  CRYPTO_PLACES,
  FIAT_STEP,
  RATE_ONE,
  RATE_PLACES,
  ceilDiv,
  formatCrypto,
  formatFiat,
} from './bridgeAmounts';
import {
  readAnswer,
  isExchangeRate,
  isExternalAccounts,
  isKycLink,
  isKycLinks,
  isTransfer,
  isWebhookEvent,
  type BridgeDepositInstructions,
  type BridgeKycLink,
  type BridgeTransfer,
} from './bridgeAnswers';
import {
  QUOTE_VALIDITY_MS,
  RampRefusal,
  type DepositInstructions,
  type ProviderQuote,
  type ProviderRampState,
  type RampCall,
  type RampDeps,
  type RampDirection,
  type RampProvider,
  type RampQuoteRequest,
  type RampRoute,
  type RampStatus,
  type StoredRamp,
} from './providers';
import { UpstreamFailure, upstreamRequest, type UpstreamAnswer } from './upstream';

/** Circle's USDC on Stellar's public network: the only USDC Bridge delivers there. */
const MAINNET_USDC_ISSUER = 'GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN';

/** The fiat rail of each currency: ACH push and SEPA are the push rails Bridge documents for transfers. */
const RAILS: Record<string, { onRail: string; offRail: string; method: DepositInstructions['method'] }> = {
  USD: { onRail: 'ach_push', offRail: 'ach', method: 'ach' },
  EUR: { onRail: 'sepa', offRail: 'sepa', method: 'sepa' },
};

/**
 * Route bounds, in the fiat currency. The minimum is the transaction minimum Bridge's payment routes table lists for
 * its fiat-to-USDC routes (1); the maximum is the per-transaction limit Bridge documents for customers created without
 * a government ID ($10,000, "Additional requirements for existing customers"), the most a new customer can move.
 */
const LIMITS = { min: '1.00', max: '10000.00' };

/** How old a webhook may be: Bridge advises rejecting events older than 10 minutes. */
const WEBHOOK_MAX_AGE_MS = 10 * 60_000;

/** Transfer states (apidocs.bridge.xyz, Transfer states) and ours; the rest fail the ramp. */
const PROCESSING_STATES = new Set(['in_review', 'funds_received', 'payment_submitted']);

export const bridgeRampProvider: RampProvider = {
  id: 'bridge',
  name: 'Bridge',
  // Required to enable; `webhookPublicKey` (webhooks) and `developerFeePercent` are optional, read when stored.
  credentialNames: ['apiKey'],
  optionalCredentialNames: ['webhookPublicKey', 'developerFeePercent'],
  upstreamCode: 'SDK_RAMPS_BRIDGE_ERROR',
  // Bridge's sandbox answers testnet apps up to the deposit instructions; mainnet apps settle.
  availableFor: () => true,
  routes: async (_deps, call, assets) => routesFor(call.network, assets),
  quote,
  start,
  status,
  webhook,
};

function routesFor(network: RampCall['network'], assets: string[]): RampRoute[] {
  const usdc = assets.filter((asset) => isBridgeUsdc(network, asset));
  return usdc.flatMap((asset) =>
    Object.keys(RAILS).flatMap((fiatCurrency) =>
      (['on', 'off'] as const).map((direction) => ({ direction, fiatCurrency, asset })),
    ),
  );
}

/**
 * On mainnet only Circle's USDC (what Bridge delivers); on testnet any asset coded USDC, since nothing settles there
 * and an app's test USDC has its own issuer.
 */
function isBridgeUsdc(network: RampCall['network'], asset: string): boolean {
  const [code, issuer] = asset.split(':');
  if (code !== 'USDC') return false;
  return network === 'testnet' || issuer === MAINNET_USDC_ISSUER;
}

// ---- quote ----

async function quote(deps: RampDeps, call: RampCall, request: RampQuoteRequest): Promise<ProviderQuote> {
  routeRails(call, request);
  await approvedCustomer(deps, call);
  const rate = await conversionRate(deps, call, request.direction, request.fiatCurrency);
  const priced = price(request, rate, feePercent(call));
  checkBounds(priced.fiatUnits, request.fiatCurrency);
  return {
    fiatAmount: formatFiat(priced.fiatUnits),
    cryptoAmount: formatCrypto(priced.cryptoUnits),
    fee: formatFiat(priced.feeFiatUnits),
    minAmount: LIMITS.min,
    maxAmount: LIMITS.max,
    // Bridge's rates are references, not firm quotes: the service's own validity applies.
    expiresAt: new Date(call.now.getTime() + QUOTE_VALIDITY_MS),
  };
}

function routeRails(call: RampCall, route: { direction: RampDirection; fiatCurrency: string; asset: string }) {
  const rails = RAILS[route.fiatCurrency];
  if (!rails || !isBridgeUsdc(call.network, route.asset))
    throw new RampRefusal({
      kind: 'route_not_offered',
      message: `Bridge does not ramp ${route.fiatCurrency} to ${route.asset.split(':')[0] ?? route.asset}`,
    });
  return rails;
}

/**
 * Destination units per source unit, scaled by RATE_ONE. USD and USDC are 1:1. For EUR, Bridge's exchange rates
 * endpoint (from=usd&to=eur) gives `sell_rate` (EUR received per USD sent, fees included: the off-ramp's rate) and
 * `buy_rate` (EUR needed per USD received: the on-ramp pays buy_rate per USDC).
 */
async function conversionRate(
  deps: RampDeps,
  call: RampCall,
  direction: RampDirection,
  fiatCurrency: string,
): Promise<{ numerator: bigint; denominator: bigint }> {
  if (fiatCurrency === 'USD') return { numerator: RATE_ONE, denominator: RATE_ONE };
  const answer = await bridgeGet(deps, call, `/v0/exchange_rates?from=usd&to=${fiatCurrency.toLowerCase()}`);
  const rates = readAnswer(isExchangeRate, ok(answer, 'exchange rates'), 'exchange rates');
  const buy = bridgeUnits(rates.buy_rate, RATE_PLACES, 'buy_rate');
  const sell = bridgeUnits(rates.sell_rate, RATE_PLACES, 'sell_rate');
  if (buy === 0n || sell === 0n) throw new UpstreamFailure('Bridge exchange rates: a rate of 0');
  return direction === 'on' ? { numerator: RATE_ONE, denominator: buy } : { numerator: sell, denominator: RATE_ONE };
}

/** The app's developer fee, a percentage Bridge withholds from the source amount; 0 when unset. */
function feePercent(call: RampCall): bigint {
  const value = call.credentials.developerFeePercent;
  if (value === undefined || value === '') return 0n;
  const percent = bridgeAmount(value, RATE_PLACES);
  if (percent === undefined || percent >= 100n * RATE_ONE)
    throw new RampRefusal({ kind: 'not_configured', message: 'Bridge developerFeePercent is not a percentage' });
  return percent;
}

interface Priced {
  fiatUnits: bigint;
  cryptoUnits: bigint;
  feeFiatUnits: bigint;
}

/**
 * Prices a request in 7-place units: the source (fiat on, USDC off) less the fee, converted at the rate. An amount
 * asked for on the destination side is inverted (rounded up) to the source amount that delivers at least it.
 */
function price(request: RampQuoteRequest, rate: { numerator: bigint; denominator: bigint }, percent: bigint): Priced {
  const sourceIsFiat = request.direction === 'on';
  const given = requestedUnits(request.amount, request.amountIn === 'fiat');
  const fromSource = (request.amountIn === 'fiat') === sourceIsFiat;
  const source = fromSource ? given : sourceFor(given, rate, percent, sourceIsFiat);
  // A fee on a fiat source is whole cents (what the quote shows is what is withheld); on USDC, to the stroop.
  const fee = floorTo((source * percent) / (100n * RATE_ONE), sourceIsFiat);
  const destination = floorTo(((source - fee) * rate.numerator) / rate.denominator, !sourceIsFiat);
  if (sourceIsFiat) return { fiatUnits: source, cryptoUnits: destination, feeFiatUnits: fee };
  const feeFiat = floorTo((fee * rate.numerator) / rate.denominator, true);
  return { fiatUnits: destination, cryptoUnits: source, feeFiatUnits: feeFiat };
}

/** The service sends a positive decimal; fiat is taken to the cent (a fraction of a cent cannot be paid). */
function requestedUnits(amount: string, isFiat: boolean): bigint {
  const units = bridgeAmount(amount, CRYPTO_PLACES);
  if (units === undefined || units <= 0n)
    throw new RampRefusal({ kind: 'route_not_offered', message: `Bridge cannot price the amount "${amount}"` });
  return floorTo(units, isFiat);
}

function sourceFor(
  destination: bigint,
  rate: { numerator: bigint; denominator: bigint },
  percent: bigint,
  sourceIsFiat: boolean,
): bigint {
  const net = ceilDiv(destination * rate.denominator, rate.numerator);
  const gross = ceilDiv(net * 100n * RATE_ONE, 100n * RATE_ONE - percent);
  return sourceIsFiat ? ceilDiv(gross, FIAT_STEP) * FIAT_STEP : gross;
}

function floorTo(units: bigint, isFiat: boolean): bigint {
  return isFiat ? (units / FIAT_STEP) * FIAT_STEP : units;
}

function checkBounds(fiatUnits: bigint, currency: string): void {
  const min = bridgeAmount(LIMITS.min, CRYPTO_PLACES)!;
  const max = bridgeAmount(LIMITS.max, CRYPTO_PLACES)!;
  if (fiatUnits < min)
    throw new RampRefusal({
      kind: 'out_of_range',
      limit: 'min',
      limitAmount: LIMITS.min,
      limitCurrency: currency,
      message: `Bridge's minimum is ${LIMITS.min} ${currency}`,
    });
  if (fiatUnits > max)
    throw new RampRefusal({
      kind: 'out_of_range',
      limit: 'max',
      limitAmount: LIMITS.max,
      limitCurrency: currency,
      message: `Bridge's maximum is ${LIMITS.max} ${currency}`,
    });
}

// ---- customer (KYC links) ----

/**
 * The user's Bridge customer id once its terms of service and KYC are approved; otherwise kyc_required with the
 * link to complete (terms first: Bridge processes KYC only after they are accepted).
 */
async function approvedCustomer(deps: RampDeps, call: RampCall): Promise<string> {
  const link = await kycLink(deps, call);
  if (link.tos_status !== 'approved') throw kycRequired(link.tos_link, 'accept Bridge’s terms of service');
  if (link.kyc_status !== 'approved') throw kycRequired(link.kyc_link, 'complete Bridge’s identity verification');
  if (!link.customer_id) throw new UpstreamFailure('Bridge KYC link: approved without a customer_id');
  return link.customer_id;
}

function kycRequired(url: string, what: string): RampRefusal {
  if (!/^https:\/\//.test(url)) throw new UpstreamFailure('Bridge KYC link: the link is not an https URL');
  return new RampRefusal({ kind: 'kyc_required', kycUrl: url, message: `The user must ${what}` });
}

async function kycLink(deps: RampDeps, call: RampCall): Promise<BridgeKycLink> {
  const email = call.user.email;
  if (!email)
    throw new RampRefusal({ kind: 'route_not_offered', message: 'Bridge needs the user’s email address for KYC' });
  const listed = await bridgeGet(deps, call, `/v0/kyc_links?email=${encodeURIComponent(email)}`);
  const links = readAnswer(isKycLinks, ok(listed, 'KYC links'), 'KYC links');
  const existing = links.data.find((link) => link.email.toLowerCase() === email.toLowerCase());
  if (existing) return existing;
  const created = await bridgeRequest(deps, call, 'POST', '/v0/kyc_links', {
    body: { email, type: 'individual' },
    // One link per user of this app even when two requests race: Bridge answers a repeated key with the first link.
    idempotencyKey: idempotencyKey('kyc_link', call.app.id, call.user.userId),
  });
  return readAnswer(isKycLink, ok(created, 'KYC link'), 'KYC link');
}

/** The user's active bank account at Bridge in `currency` (the off-ramp's destination). */
async function externalAccount(deps: RampDeps, call: RampCall, customerId: string, currency: string): Promise<string> {
  const answer = await bridgeGet(deps, call, `/v0/customers/${encodeURIComponent(customerId)}/external_accounts`);
  const accounts = readAnswer(isExternalAccounts, ok(answer, 'external accounts'), 'external accounts');
  const account = accounts.data.find((a) => a.active !== false && a.currency.toLowerCase() === currency.toLowerCase());
  if (!account)
    throw new RampRefusal({
      kind: 'route_not_offered',
      message: `The user has no ${currency} bank account linked at Bridge to receive the off-ramp`,
    });
  return account.id;
}

// ---- start and status ----

async function start(deps: RampDeps, call: RampCall, ramp: StoredRamp): Promise<ProviderRampState> {
  const { quote: stored } = ramp;
  const rails = routeRails(call, stored);
  if (stored.direction === 'off' && call.network === 'testnet')
    throw new RampRefusal({
      kind: 'testnet_not_settleable',
      message: 'Bridge settles USDC on Stellar’s public network only: a testnet off-ramp cannot be paid',
    });
  const customerId = await approvedCustomer(deps, call);
  const body =
    stored.direction === 'on'
      ? onRampTransfer(call, stored.fiatAmount, stored.fiatCurrency, rails.onRail, customerId)
      : offRampTransfer(
          call,
          stored.cryptoAmount,
          stored.fiatCurrency,
          rails.offRail,
          customerId,
          await externalAccount(deps, call, customerId, stored.fiatCurrency),
        );
  // The quote's id as idempotency key: one ramp per quote, and a start retried after a lost answer (the service gives
  // the claim back when a start fails, so the retry is a new ramp row) finds the same transfer.
  const answer = await bridgeRequest(deps, call, 'POST', '/v0/transfers', {
    body,
    idempotencyKey: idempotencyKey('transfer', call.app.id, ramp.quote.quoteId),
  });
  const transfer = readAnswer(isTransfer, ok(answer, 'transfer'), 'transfer');
  const state = transferState(transfer, stored.asset);
  if (call.network === 'testnet')
    throw new RampRefusal({
      kind: 'testnet_not_settleable',
      message:
        'Bridge settles on Stellar’s public network only: on testnet the on-ramp stops at its deposit instructions',
      ...(state.depositInstructions ? { depositInstructions: state.depositInstructions } : {}),
    });
  return state;
}

function onRampTransfer(call: RampCall, amount: string, currency: string, rail: string, customerId: string) {
  return {
    amount,
    on_behalf_of: customerId,
    ...developerFee(call),
    source: { payment_rail: rail, currency: currency.toLowerCase() },
    destination: { payment_rail: 'stellar', currency: 'usdc', to_address: call.user.wallet.publicKey },
  };
}

function offRampTransfer(
  call: RampCall,
  amount: string,
  currency: string,
  rail: string,
  customerId: string,
  externalAccountId: string,
) {
  return {
    amount,
    on_behalf_of: customerId,
    ...developerFee(call),
    source: { payment_rail: 'stellar', currency: 'usdc', from_address: call.user.wallet.publicKey },
    destination: { payment_rail: rail, currency: currency.toLowerCase(), external_account_id: externalAccountId },
  };
}

function developerFee(call: RampCall): { developer_fee_percent?: string } {
  const percent = feePercent(call);
  return percent === 0n ? {} : { developer_fee_percent: formatCrypto(percent / 10n ** BigInt(RATE_PLACES - 7)) };
}

async function status(deps: RampDeps, call: RampCall, ramp: StoredRamp): Promise<ProviderRampState> {
  if (!ramp.providerRef) throw new UpstreamFailure('Bridge ramp without a transfer id');
  const answer = await bridgeGet(deps, call, `/v0/transfers/${encodeURIComponent(ramp.providerRef)}`);
  return transferState(readAnswer(isTransfer, ok(answer, 'transfer'), 'transfer'), ramp.quote.asset);
}

/**
 * Bridge's transfer as our state. An off-ramp awaiting funds carries `payment` (where the service sends the USDC)
 * when the asset is known (status and start; a webhook alone does not name it).
 */
function transferState(transfer: BridgeTransfer, asset?: string): ProviderRampState {
  const direction: RampDirection = transfer.source.payment_rail === 'stellar' ? 'off' : 'on';
  const ours = ourStatus(transfer.state, direction);
  const state: ProviderRampState = { status: ours, providerRef: transfer.id };
  if (ours === 'failed') state.failureReason = `Bridge transfer ${transfer.state}`;
  const hash = transfer.receipt?.destination_tx_hash;
  if (direction === 'on' && ours === 'completed' && hash) state.stellarTxHash = hash;
  if (transfer.state !== 'awaiting_funds') return state;
  const instructions = transfer.source_deposit_instructions;
  if (!instructions) throw new UpstreamFailure('Bridge transfer: awaiting funds without deposit instructions');
  if (direction === 'on') state.depositInstructions = depositInstructions(instructions);
  else if (asset) state.payment = offRampPayment(instructions, asset);
  return state;
}

function ourStatus(state: string, direction: RampDirection): RampStatus {
  if (state === 'awaiting_funds') return direction === 'on' ? 'awaiting_deposit' : 'processing';
  if (PROCESSING_STATES.has(state)) return 'processing';
  if (state === 'payment_processed') return 'completed';
  return 'failed';
}

/** Bridge's bank details, named as the contract's `details` (bankName, accountNumber, routingNumber, iban...). */
function depositInstructions(instructions: BridgeDepositInstructions): DepositInstructions {
  const rail = RAILS_BY_PAYMENT_RAIL[instructions.payment_rail];
  if (!rail || !instructions.amount || !instructions.deposit_message)
    throw new UpstreamFailure('Bridge deposit instructions: no fiat rail, amount or deposit message');
  const currency = instructions.currency.toUpperCase();
  const details: Record<string, string> = {};
  for (const [ours, theirs] of DETAIL_FIELDS) {
    const value = instructions[theirs];
    if (typeof value === 'string' && value !== '') details[ours] = value;
  }
  return {
    method: rail,
    amount: bridgeFiatString(instructions.amount, 'deposit amount'),
    currency,
    reference: instructions.deposit_message,
    details,
  };
}

const RAILS_BY_PAYMENT_RAIL: Record<string, DepositInstructions['method']> = {
  ach_push: 'ach',
  ach: 'ach',
  wire: 'wire',
  sepa: 'sepa',
};

const DETAIL_FIELDS: [string, keyof BridgeDepositInstructions][] = [
  ['bankName', 'bank_name'],
  ['bankAddress', 'bank_address'],
  ['routingNumber', 'bank_routing_number'],
  ['accountNumber', 'bank_account_number'],
  ['beneficiary', 'bank_beneficiary_name'],
  ['beneficiaryAddress', 'bank_beneficiary_address'],
  ['iban', 'iban'],
  ['bic', 'bic'],
  ['accountHolderName', 'account_holder_name'],
];

/** Where the off-ramp's USDC goes: Bridge's Stellar deposit address, with the memo Bridge matches the deposit by. */
function offRampPayment(instructions: BridgeDepositInstructions, asset: string): ProviderRampState['payment'] {
  const { to_address: destination, blockchain_memo: memo, amount } = instructions;
  if (instructions.payment_rail !== 'stellar' || !destination || !/^G[A-Z2-7]{55}$/.test(destination))
    throw new UpstreamFailure('Bridge deposit instructions: no Stellar deposit address');
  // A Stellar text memo holds at most 28 bytes; Bridge documents blockchain_memo as a string.
  if (!memo || Buffer.byteLength(memo) > 28) throw new UpstreamFailure('Bridge deposit instructions: no usable memo');
  if (!amount) throw new UpstreamFailure('Bridge deposit instructions: no amount');
  const cryptoAmount = formatCrypto(bridgeUnits(amount, CRYPTO_PLACES, 'deposit amount'));
  return {
    destination,
    asset,
    amount: cryptoAmount,
    memo: { type: 'text', value: memo },
    action: `Send ${cryptoAmount} ${asset.split(':')[0] ?? 'USDC'} to Bridge`,
  };
}

// ---- webhook ----

/**
 * Checks Bridge's X-Webhook-Signature (`t=<ms>,v0=<base64>`): an RSA/EC signature, under the endpoint's public key,
 * of the SHA-256 digest of `<t>.<raw body>` (Bridge signs with "two passes of hashing": the signature scheme hashes
 * that digest again). Older than 10 minutes (or as far in the future) is refused as a replay. Transfer events become
 * updates; other categories (customer, kyc_link...) concern no ramp.
 */
async function webhook(
  _deps: RampDeps,
  call: Omit<RampCall, 'user' | 'signChallenge'>,
  request: { headers: Record<string, string | undefined>; rawBody: Buffer },
): Promise<{ providerRef: string; state: ProviderRampState } | undefined> {
  const publicKeyPem = call.credentials.webhookPublicKey;
  if (!publicKeyPem)
    throw new RampRefusal({ kind: 'not_configured', message: 'Bridge webhooks need the webhookPublicKey credential' });
  verifyBridgeSignature(publicKeyPem, header(request.headers, 'x-webhook-signature'), request.rawBody, call.now);
  let parsed: unknown;
  try {
    parsed = JSON.parse(request.rawBody.toString('utf8'));
  } catch {
    throw new UpstreamFailure('Bridge webhook: the body is not JSON');
  }
  const event = readAnswer(isWebhookEvent, parsed, 'webhook event');
  if (event.event_category !== 'transfer') return undefined;
  const transfer = readAnswer(isTransfer, event.event_object, 'webhook transfer');
  return { providerRef: transfer.id, state: transferState(transfer) };
}

function verifyBridgeSignature(publicKeyPem: string, value: string | undefined, rawBody: Buffer, now: Date): void {
  const invalid = (why: string) =>
    new RampRefusal({ kind: 'webhook_signature_invalid', message: `Bridge webhook: ${why}` });
  const parts = new Map((value ?? '').split(',').map((part) => part.trim().split('=', 2) as [string, string]));
  const timestamp = parts.get('t');
  const signature = (value ?? '').match(/(?:^|,)\s*v0=([A-Za-z0-9+/]+={0,2})\s*(?:,|$)/)?.[1];
  if (!timestamp || !/^\d{1,16}$/.test(timestamp) || !signature) throw invalid('no t= and v0= in X-Webhook-Signature');
  if (Math.abs(now.getTime() - Number(timestamp)) > WEBHOOK_MAX_AGE_MS) throw invalid('older than 10 minutes');
  let key;
  try {
    key = createPublicKey(publicKeyPem);
  } catch {
    throw new RampRefusal({ kind: 'not_configured', message: 'Bridge webhookPublicKey is not a PEM public key' });
  }
  const digest = createHash('sha256').update(`${timestamp}.`).update(rawBody).digest();
  if (!signatureMatches(digest, key, Buffer.from(signature, 'base64'))) throw invalid('the signature does not match');
}

/** A signature that cannot even be checked (wrong length or encoding for the key) does not match. */
function signatureMatches(digest: Buffer, key: KeyObject, signature: Buffer): boolean {
  try {
    return verifySignature('sha256', digest, key, signature);
  } catch {
    return false;
  }
}

function header(headers: Record<string, string | undefined>, name: string): string | undefined {
  const found = Object.entries(headers).find(([key]) => key.toLowerCase() === name);
  return found?.[1];
}

// ---- requests ----

function baseUrl(deps: RampDeps): string {
  return (deps.ramps?.bridgeApiUrl ?? DEFAULT_RAMPS_SETTINGS.bridgeApiUrl).replace(/\/+$/, '');
}

function apiKey(call: Pick<RampCall, 'credentials'>): string {
  const key = call.credentials.apiKey;
  if (!key) throw new RampRefusal({ kind: 'not_configured', message: 'Bridge needs the apiKey credential' });
  return key;
}

/** A stable key per purpose, app and subject: Bridge's Idempotency-Key makes a repeated POST answer the first one. */
function idempotencyKey(purpose: string, appId: string, subject: string): string {
  return createHash('sha256').update(`onboard:bridge:${purpose}:${appId}:${subject}`).digest('hex').slice(0, 40);
}

function bridgeGet(deps: RampDeps, call: Pick<RampCall, 'credentials'>, path: string): Promise<UpstreamAnswer> {
  return bridgeRequest(deps, call, 'GET', path, {});
}

async function bridgeRequest(
  deps: RampDeps,
  call: Pick<RampCall, 'credentials'>,
  method: 'GET' | 'POST',
  path: string,
  options: { body?: unknown; idempotencyKey?: string },
): Promise<UpstreamAnswer> {
  const headers: Record<string, string> = { 'Api-Key': apiKey(call) };
  // Bridge requires Idempotency-Key on POSTs and rejects it on other methods.
  if (options.idempotencyKey) headers['Idempotency-Key'] = options.idempotencyKey;
  return upstreamRequest(deps, {
    method,
    url: `${baseUrl(deps)}${path}`,
    headers,
    ...(options.body !== undefined ? { body: options.body } : {}),
  });
}

/** A 2xx body; a 401/403 is the app's key (not_configured); any other 4xx is Bridge refusing what we sent. */
function ok(answer: UpstreamAnswer, what: string): unknown {
  if (answer.status >= 200 && answer.status < 300) return answer.body;
  if (answer.status === 401 || answer.status === 403)
    throw new RampRefusal({ kind: 'not_configured', message: `Bridge refused the app's API key (${answer.status})` });
  throw new UpstreamFailure(`Bridge ${what}: answered ${answer.status}`);
}
