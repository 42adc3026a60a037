// Etherfuse as a ramp provider: MXN over SPEI to and from the app's USDC on Stellar, built to Etherfuse's public API
// reference (docs.etherfuse.com): onboarding URL, KYC status, quotes, orders, the order_updated webhook.
//
// Etherfuse lets the integrator choose the customer's and bank account's UUIDs ("store them: they are permanently
// bound after onboarding"). They are derived here from the app and the user (UUID v5), so the same user always maps
// to the same customer with nothing to store, and two apps (two API keys) never share one. Until the customer's KYC
// for the wallet is approved, quotes and starts are refused with kyc_required and a fresh presigned onboarding URL
// (identity, bank account and agreements, in Etherfuse's hosted UI).
//
// A quote is Etherfuse's (POST /ramp/quote); its id is kept as providerRef and its expiry used (the reference says 2
// minutes). Start creates the order from the quote with an order id derived from the ramp (a retried start finds the
// same order: Etherfuse answers 409), then reads the order: an on-ramp waits for the user's SPEI payment to the
// order's CLABE; an off-ramp uses Etherfuse's Stellar anchor mode (`useAnchor`), so the service pays the USDC to the
// anchor account with the memo Etherfuse gives. Etherfuse sees the chain itself, so no paymentSent.
import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { DEFAULT_RAMPS_SETTINGS } from '../../config';
import { fromStroops } from '../money/amounts';
import { floorToCent, formatCents, parseDecimal } from '../money/decimals';
import {
  isCreatedOrder,
  isKycStatus,
  isOnboardingUrl,
  isOrder,
  isQuote,
  isWebhookBody,
  readAnswer,
  type EtherfuseOrder,
  type EtherfuseQuote,
} from './etherfuseAnswers';
import {
  RampRefusal,
  type DepositInstructions,
  type OffRampPayment,
  type ProviderQuote,
  type ProviderRampState,
  type RampCall,
  type RampDeps,
  type RampProvider,
  type RampQuoteRequest,
  type RampRoute,
  type RampStatus,
  type RampWebhookUpdate,
  type StoredRamp,
} from './providers';
import { UpstreamFailure, upstreamRequest, type UpstreamAnswer } from './upstream';

/** Circle's USDC on Stellar's public network: the USDC Etherfuse ramps there. */
const MAINNET_USDC_ISSUER = 'GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN';

/**
 * Route bounds in MXN. Etherfuse's reference publishes no per-order minimum or maximum (an amount it will not take is
 * a 4xx on the quote): these are this adapter's own, to be confirmed with Etherfuse for production volumes.
 */
const LIMITS = { min: '100.00', max: '250000.00' };

/** RFC 4122 namespace of the ids this service derives for Etherfuse (a fixed random UUID). */
const ID_NAMESPACE = '6f1c3b0e-7d2a-4c55-9a8e-2b4f1d6e9c07';

/** Stroops in one cent: amounts are bigints of 7-place units, fiat a whole number of cents. */

export const etherfuseRampProvider: RampProvider = {
  id: 'etherfuse',
  name: 'Etherfuse',
  // Required to enable; `webhookSecret` (webhooks) is optional, read when the app stored it.
  credentialNames: ['apiKey'],
  optionalCredentialNames: ['webhookSecret'],
  upstreamCode: 'SDK_RAMPS_ETHERFUSE_ERROR',
  // Etherfuse's sandbox settles on Stellar's testnet, its production on the public network.
  availableFor: () => true,
  routes: async (_deps, call, assets) => routesFor(call.network, assets),
  quote,
  start,
  status,
  webhook,
};

function routesFor(network: RampCall['network'], assets: string[]): RampRoute[] {
  return assets
    .filter((asset) => isEtherfuseUsdc(network, asset))
    .flatMap((asset) => (['on', 'off'] as const).map((direction) => ({ direction, fiatCurrency: 'MXN', asset })));
}

/** On mainnet only Circle's USDC; on testnet (Etherfuse's sandbox) any asset coded USDC. */
function isEtherfuseUsdc(network: RampCall['network'], asset: string): boolean {
  const [code, issuer] = asset.split(':');
  return code === 'USDC' && (network === 'testnet' || issuer === MAINNET_USDC_ISSUER);
}

function checkRoute(call: Pick<RampCall, 'network'>, route: { fiatCurrency: string; asset: string }): void {
  if (route.fiatCurrency !== 'MXN' || !isEtherfuseUsdc(call.network, route.asset))
    throw new RampRefusal({
      kind: 'route_not_offered',
      message: `Etherfuse does not ramp ${route.fiatCurrency} to ${route.asset.split(':')[0] ?? route.asset}`,
    });
}

// ---- ids ----

/** A name-based (v5) UUID in this service's namespace: the same name always gives the same id. */
function derivedUuid(name: string): string {
  const namespace = Buffer.from(ID_NAMESPACE.replace(/-/g, ''), 'hex');
  const bytes = createHash('sha1').update(namespace).update(name).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function customerIds(call: Pick<RampCall, 'app' | 'user'>): { customerId: string; bankAccountId: string } {
  return {
    customerId: derivedUuid(`customer:${call.app.id}:${call.user.userId}`),
    bankAccountId: derivedUuid(`bank-account:${call.app.id}:${call.user.userId}`),
  };
}

// ---- onboarding (KYC) ----

/** Resolves when the user's customer is KYC-approved for the wallet; else kyc_required with an onboarding URL. */
async function requireVerified(deps: RampDeps, call: RampCall): Promise<{ customerId: string; bankAccountId: string }> {
  const ids = customerIds(call);
  const wallet = call.user.wallet.publicKey;
  const answer = await etherfuseRequest(deps, call, 'GET', `/ramp/customer/${ids.customerId}/kyc/${wallet}`);
  // 404: Etherfuse does not know this customer yet (onboarding creates it).
  if (answer.status !== 404) {
    const kyc = readAnswer(isKycStatus, ok(answer, 'KYC status'), 'KYC status');
    if (kyc.status === 'approved' || kyc.status === 'approved_chain_deploying') return ids;
  }
  throw new RampRefusal({
    kind: 'kyc_required',
    kycUrl: await onboardingUrl(deps, call, ids),
    message: 'The user must complete Etherfuse’s onboarding (identity and bank account)',
  });
}

async function onboardingUrl(
  deps: RampDeps,
  call: RampCall,
  ids: { customerId: string; bankAccountId: string },
): Promise<string> {
  const answer = await etherfuseRequest(deps, call, 'POST', '/ramp/onboarding-url', {
    ...ids,
    publicKey: call.user.wallet.publicKey,
    blockchain: 'stellar',
    // Recommended by the reference (status emails, the sign-in attached to the right user); the name is not known here.
    ...(call.user.email ? { userInfo: { email: call.user.email } } : {}),
  });
  const body = readAnswer(isOnboardingUrl, ok(answer, 'onboarding URL'), 'onboarding URL');
  return (body.presigned_url ?? body.presignedUrl)!;
}

// ---- quote ----

async function quote(deps: RampDeps, call: RampCall, request: RampQuoteRequest): Promise<ProviderQuote> {
  checkRoute(call, request);
  // Etherfuse prices from the amount sent: MXN paid in (on), USDC sent (off).
  const fromSource = (request.direction === 'on') === (request.amountIn === 'fiat');
  if (!fromSource)
    throw new RampRefusal({
      kind: 'route_not_offered',
      message: `Etherfuse quotes from the amount sent: give the ${request.direction === 'on' ? 'MXN paid' : 'USDC sent'}`,
    });
  const sourceUnits = requestedUnits(request.amount, request.direction === 'on');
  if (request.direction === 'on') checkBounds(sourceUnits);
  const { customerId } = await requireVerified(deps, call);
  const answer = await etherfuseRequest(deps, call, 'POST', '/ramp/quote', {
    quoteId: randomUUID(),
    customerId,
    blockchain: 'stellar',
    quoteAssets:
      request.direction === 'on'
        ? { type: 'onramp', sourceAsset: 'MXN', targetAsset: request.asset }
        : { type: 'offramp', sourceAsset: request.asset, targetAsset: 'MXN' },
    sourceAmount: request.direction === 'on' ? formatCents(sourceUnits) : fromStroops(sourceUnits),
    // Lets Etherfuse check the wallet's trustline for an on-ramp (the reference recommends it for Stellar).
    ...(request.direction === 'on' ? { walletAddress: call.user.wallet.publicKey } : {}),
  });
  if (answer.status === 422)
    throw new RampRefusal({ kind: 'route_not_offered', message: 'Etherfuse does not quote this asset or amount' });
  return priceQuote(readAnswer(isQuote, ok(answer, 'quote'), 'quote'), request);
}

function priceQuote(body: EtherfuseQuote, request: RampQuoteRequest): ProviderQuote {
  const source = units(body.sourceAmount, 'sourceAmount');
  const destination = units(body.destinationAmount, 'destinationAmount');
  // feeAmount is in the source asset (the reference's Fees page): MXN on, USDC off, converted at the quote's rate.
  const feeSource = body.feeAmount === undefined ? 0n : units(body.feeAmount, 'feeAmount');
  const expiresAt = new Date(body.expiresAt);
  if (Number.isNaN(expiresAt.getTime())) throw new UpstreamFailure('Etherfuse quote: expiresAt is not a date');
  const on = request.direction === 'on';
  const fiat = floorToCent(on ? source : destination);
  if (!on) checkBounds(fiat);
  return {
    fiatAmount: formatCents(fiat),
    cryptoAmount: fromStroops(on ? destination : source),
    fee: formatCents(on ? floorToCent(feeSource) : feeInFiat(feeSource, body.exchangeRate)),
    minAmount: LIMITS.min,
    maxAmount: LIMITS.max,
    expiresAt,
    providerRef: body.quoteId,
  };
}

/** An off-ramp's fee (USDC) in MXN at the quote's exchange rate, to the cent. */
function feeInFiat(feeUnits: bigint, exchangeRate: string | undefined): bigint {
  if (feeUnits === 0n) return 0n;
  if (exchangeRate === undefined) throw new UpstreamFailure('Etherfuse quote: a fee without an exchangeRate');
  return floorToCent((feeUnits * units(exchangeRate, 'exchangeRate')) / 10_000_000n);
}

function checkBounds(fiatUnits: bigint): void {
  for (const limit of ['min', 'max'] as const) {
    const bound = decimalUnits(LIMITS[limit])!;
    if (limit === 'min' ? fiatUnits >= bound : fiatUnits <= bound) continue;
    throw new RampRefusal({
      kind: 'out_of_range',
      limit,
      limitAmount: LIMITS[limit],
      limitCurrency: 'MXN',
      message: `Etherfuse's ${limit === 'min' ? 'minimum' : 'maximum'} is ${LIMITS[limit]} MXN`,
    });
  }
}

// ---- start, status ----

async function start(deps: RampDeps, call: RampCall, ramp: StoredRamp): Promise<ProviderRampState> {
  checkRoute(call, ramp.quote);
  if (!ramp.quote.providerRef) throw new UpstreamFailure('Etherfuse ramp started from a quote without its quote id');
  const { bankAccountId } = await requireVerified(deps, call);
  // From the quote (one ramp per quote): a start retried after a lost answer is a new ramp row, but the same order.
  const orderId = derivedUuid(`order:${call.app.id}:${ramp.quote.quoteId}`);
  const created = await etherfuseRequest(deps, call, 'POST', '/ramp/order', {
    orderId,
    bankAccountId,
    publicKey: call.user.wallet.publicKey,
    quoteId: ramp.quote.providerRef,
    // Anchor mode: an address and memo to pay, instead of a pre-signed transaction from Etherfuse's wallet.
    ...(ramp.quote.direction === 'off' ? { useAnchor: true } : {}),
  });
  // 409: this order exists already (a start retried after a lost answer); it is read below like a new one.
  if (created.status !== 409) {
    const body = readAnswer(isCreatedOrder, ok(created, 'order'), 'order');
    if ((body.onramp ?? body.offramp)?.orderId.toLowerCase() !== orderId)
      throw new UpstreamFailure('Etherfuse order: created with another order id');
  }
  return readOrder(deps, call, orderId, ramp);
}

async function status(deps: RampDeps, call: RampCall, ramp: StoredRamp): Promise<ProviderRampState> {
  if (!ramp.providerRef) throw new UpstreamFailure('Etherfuse ramp without an order id');
  return readOrder(deps, call, ramp.providerRef, ramp);
}

async function readOrder(
  deps: RampDeps,
  call: RampCall,
  orderId: string,
  ramp: StoredRamp,
): Promise<ProviderRampState> {
  const answer = await etherfuseRequest(deps, call, 'GET', `/ramp/order/${orderId}`);
  return orderState(readAnswer(isOrder, ok(answer, 'order'), 'order'), ramp);
}

/**
 * Etherfuse's order as our state: created -> waiting for the user's SPEI payment (on) or for the service's USDC
 * payment (off, with `payment` when the ramp is known); funded -> processing; completed or finalized -> completed
 * (an off-ramp is completed when the MXN is sent; finalized only closes the reversal window); failed, refunded,
 * canceled -> failed.
 */
function orderState(order: EtherfuseOrder, ramp?: StoredRamp): ProviderRampState {
  const on = order.orderType === 'onramp';
  const ours = ourStatus(order.status, on);
  const state: ProviderRampState = { status: ours, providerRef: order.orderId };
  if (ours === 'failed') state.failureReason = `Etherfuse order ${order.status}`;
  if (on && ours === 'completed' && order.confirmedTxSignature && /^[0-9a-f]{64}$/i.test(order.confirmedTxSignature))
    state.stellarTxHash = order.confirmedTxSignature.toLowerCase();
  if (order.status !== 'created') return state;
  if (on) state.depositInstructions = speiInstructions(order, ramp);
  else if (ramp) state.payment = anchorPayment(order, ramp);
  return state;
}

function ourStatus(status: EtherfuseOrder['status'], on: boolean): RampStatus {
  switch (status) {
    case 'created':
      return on ? 'awaiting_deposit' : 'processing';
    case 'funded':
      return 'processing';
    case 'completed':
    case 'finalized':
      return 'completed';
    default:
      return 'failed';
  }
}

/**
 * The SPEI transfer: to the order's CLABE (an STP proxy account of the customer), the amount of the quote. The
 * reference documents no payment reference for SPEI (Etherfuse matches the deposit by its CLABE): the order id is
 * given as the reference the user may quote.
 */
function speiInstructions(order: EtherfuseOrder, ramp?: StoredRamp): DepositInstructions {
  if (!order.depositClabe) throw new UpstreamFailure('Etherfuse order: an on-ramp without a depositClabe');
  const amount = order.amountInFiat
    ? formatCents(floorToCent(units(order.amountInFiat, 'amountInFiat')))
    : ramp?.quote.fiatAmount;
  if (!amount) throw new UpstreamFailure('Etherfuse order: an on-ramp without an amount');
  const details: Record<string, string> = { clabe: order.depositClabe };
  if (order.depositAccountHolder) details.beneficiary = order.depositAccountHolder;
  if (order.depositBankName) details.bankName = order.depositBankName;
  return { method: 'spei', amount, currency: 'MXN', reference: order.orderId, details };
}

/** Where the off-ramp's USDC goes in anchor mode: Etherfuse's account, with the memo it matches the payment by. */
function anchorPayment(order: EtherfuseOrder, ramp: StoredRamp): OffRampPayment {
  const { withdrawAnchorAccount: destination, withdrawMemo: value, withdrawMemoType: type } = order;
  if (!destination || !value || !type)
    throw new UpstreamFailure('Etherfuse order: an off-ramp without withdrawAnchorAccount and memo');
  checkMemo(type, value);
  const amount = order.amountInTokens
    ? fromStroops(units(order.amountInTokens, 'amountInTokens'))
    : ramp.quote.cryptoAmount;
  const code = ramp.quote.asset.split(':')[0] ?? 'USDC';
  return {
    destination,
    asset: ramp.quote.asset,
    amount,
    memo: { type, value },
    action: `Send ${amount} ${code} to Etherfuse`,
  };
}

/** A memo Stellar can carry: text up to 28 bytes, id an unsigned 64-bit integer, hash 32 bytes in hex. */
function checkMemo(type: 'text' | 'id' | 'hash', value: string): void {
  const valid =
    type === 'text'
      ? Buffer.byteLength(value) <= 28
      : type === 'id'
        ? /^\d{1,20}$/.test(value) && BigInt(value) <= 18_446_744_073_709_551_615n
        : /^[0-9a-fA-F]{64}$/.test(value);
  if (!valid) throw new UpstreamFailure(`Etherfuse order: withdrawMemo is not a Stellar ${type} memo`);
}

// ---- webhook ----

/**
 * Checks Etherfuse's X-Signature (`sha256=<hex>`): HMAC-SHA256, under the webhook secret (base64-decoded), of the
 * body canonicalized per RFC 8785 (JCS), compared in constant time. The reference documents no timestamp, so a replay
 * of a genuine delivery cannot be told apart; it is harmless here since an update only restates the order's state.
 * order_updated becomes an update; other events (customer_updated, kyc_updated...) concern no ramp.
 */
async function webhook(
  _deps: RampDeps,
  call: Omit<RampCall, 'user' | 'signChallenge'>,
  request: { headers: Record<string, string | undefined>; rawBody: Buffer },
): Promise<RampWebhookUpdate | undefined> {
  const secret = call.credentials.webhookSecret;
  if (!secret)
    throw new RampRefusal({ kind: 'not_configured', message: 'Etherfuse webhooks need the webhookSecret credential' });
  let parsed: unknown;
  try {
    parsed = JSON.parse(request.rawBody.toString('utf8'));
  } catch {
    throw invalidSignature('the body is not JSON');
  }
  const expected = `sha256=${createHmac('sha256', Buffer.from(secret, 'base64')).update(canonicalJson(parsed)).digest('hex')}`;
  const given = Buffer.from(header(request.headers, 'x-signature') ?? '');
  if (given.length !== expected.length || !timingSafeEqual(given, Buffer.from(expected)))
    throw invalidSignature('the signature does not match');
  const body = readAnswer(isWebhookBody, parsed, 'webhook');
  if (!('order_updated' in body)) return undefined;
  const order = readAnswer(isOrder, body.order_updated, 'webhook order');
  return { providerRef: order.orderId, state: orderState(order) };
}

function invalidSignature(why: string): RampRefusal {
  return new RampRefusal({ kind: 'webhook_signature_invalid', message: `Etherfuse webhook: ${why}` });
}

/**
 * RFC 8785 (JCS): object keys sorted by UTF-16 code units, no whitespace, strings and numbers as ECMAScript's
 * JSON.stringify writes them (which is what JCS specifies).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

function header(headers: Record<string, string | undefined>, name: string): string | undefined {
  return Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
}

// ---- amounts ----

const decimalUnits = (value: string): bigint | undefined => parseDecimal(value, 7);

/** An amount Etherfuse sent, in 7-place units; anything finer than the ledger's unit is nonsense (UpstreamFailure). */
function units(value: string, what: string): bigint {
  const parsed = decimalUnits(value);
  if (parsed === undefined) throw new UpstreamFailure(`Etherfuse ${what}: "${value.slice(0, 40)}" is not an amount`);
  return parsed;
}

/** The service's positive amount; MXN is taken to the cent (a fraction of a centavo cannot be paid). */
function requestedUnits(amount: string, isFiat: boolean): bigint {
  const parsed = decimalUnits(amount);
  const result = parsed === undefined ? 0n : isFiat ? floorToCent(parsed) : parsed;
  if (result <= 0n) throw new RampRefusal({ kind: 'route_not_offered', message: `Etherfuse cannot price "${amount}"` });
  return result;
}

// ---- requests ----

function apiKey(call: Pick<RampCall, 'credentials'>): string {
  const key = call.credentials.apiKey;
  if (!key) throw new RampRefusal({ kind: 'not_configured', message: 'Etherfuse needs the apiKey credential' });
  return key;
}

/** Etherfuse takes the API key as the whole Authorization header (no Bearer prefix). */
function etherfuseRequest(
  deps: RampDeps,
  call: Pick<RampCall, 'credentials'>,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<UpstreamAnswer> {
  const base = (deps.ramps?.etherfuseApiUrl ?? DEFAULT_RAMPS_SETTINGS.etherfuseApiUrl).replace(/\/+$/, '');
  return upstreamRequest(deps, {
    method,
    url: `${base}${path}`,
    headers: { Authorization: apiKey(call) },
    ...(body !== undefined ? { body } : {}),
  });
}

/** A 2xx body; 401/403 is the app's key (not_configured); any other 4xx is Etherfuse refusing what we sent. */
function ok(answer: UpstreamAnswer, what: string): unknown {
  if (answer.status >= 200 && answer.status < 300) return answer.body;
  if (answer.status === 401 || answer.status === 403)
    throw new RampRefusal({
      kind: 'not_configured',
      message: `Etherfuse refused the app's API key (${answer.status})`,
    });
  throw new UpstreamFailure(`Etherfuse ${what}: answered ${answer.status}`);
}
