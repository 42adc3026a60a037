// The `sep24` ramp provider: any SEP-24 anchor (hosted deposit and withdrawal), named by the app's `anchorDomain`.
// The anchor runs its own interactive flow (KYC, bank details, amount confirmation) in a page the user opens, so this
// adapter mostly relays: routes and an indicative price from the anchor's public /info, the interactive URL as the
// ramp's kycUrl, and the anchor's transaction status mapped to the contract's ramp statuses. SEP-24 anchors are
// polled (no webhook), and see the chain themselves (no paymentSent).
//
// Discovery, SEP-10 sign-in and SEP-12 are in sep24Anchor.ts; the price arithmetic in sep24Amounts.ts.
//
// Fiat: SEP-24 ramps an asset against "its" fiat 1:1 and names no currency in /info. The fiat of a route is the
// `anchor_asset` of the asset's [[CURRENCIES]] entry in the stellar.toml when that is a fiat code, else USD.
import { StrKey } from '@stellar/stellar-sdk';
import { toStroops } from '../money/amounts';
import {
  QUOTE_VALIDITY_MS,
  RampRefusal,
  type DepositInstructions,
  type OffRampPayment,
  type ProviderRampState,
  type RampDeps,
  type RampDirection,
  type RampProvider,
  type RampQuoteRequest,
  type RampRoute,
  type StoredRamp,
} from './providers';
import {
  anchorRequest,
  discoverAnchor,
  isRecord,
  isWebUrl,
  optionalString,
  requiredString,
  shareCustomer,
  signIn,
  type AnchorToml,
} from './sep24Anchor';
import { formatAmount, priceSep24, readTermsAmount, type Sep24Terms } from './sep24Amounts';
import { UpstreamFailure } from './upstream';

/** The fiat of a route whose anchor names none (see the header). */
export const DEFAULT_SEP24_FIAT = 'USD';

/** The contract's kycUrl is at most this long. */
const MAX_URL = 2048;

/** An app asset as the anchor names it: /info keys assets by code, `native` for XLM. */
interface AnchorAsset {
  asset: string;
  code: string;
  issuer?: string;
}

function anchorAssetOf(asset: string): AnchorAsset | undefined {
  if (asset === 'native') return { asset, code: 'native' };
  const [code, issuer, extra] = asset.split(':');
  if (!code || !issuer || extra !== undefined) return undefined;
  return { asset, code, issuer };
}

/**
 * The fiat currency the anchor ramps `asset` against, or undefined when it does not ramp this asset. /info knows only
 * codes, and two issuers' USDC are different assets: an issued asset must be one the stellar.toml lists with its
 * issuer, so an off-ramp never sends one issuer's token to an anchor that redeems another's.
 */
function fiatOf(toml: AnchorToml, asset: AnchorAsset): string | undefined {
  if (asset.code === 'native') return DEFAULT_SEP24_FIAT;
  const listed = toml.currencies.find((c) => c.code === asset.code && c.issuer === asset.issuer);
  return listed ? (listed.fiat ?? DEFAULT_SEP24_FIAT) : undefined;
}

/** The anchor's GET /info (public, unauthenticated). */
async function fetchInfo(deps: RampDeps, toml: AnchorToml): Promise<Record<string, unknown>> {
  return anchorRequest(deps, { method: 'GET', url: `${toml.transferServer}/info` }, 'SEP-24 /info');
}

/** /info's entry for the asset in one direction when it is enabled there, else undefined. */
function enabledEntry(info: Record<string, unknown>, direction: RampDirection, code: string) {
  const side = info[direction === 'on' ? 'deposit' : 'withdraw'];
  if (side === undefined || side === null) return undefined;
  if (!isRecord(side)) throw new UpstreamFailure('SEP-24 /info: deposit or withdraw is not an object');
  const entry = side[code];
  if (entry === undefined) return undefined;
  if (!isRecord(entry) || (entry.enabled !== undefined && typeof entry.enabled !== 'boolean'))
    throw new UpstreamFailure(`SEP-24 /info: the entry of ${code} is not an object with a boolean enabled`);
  return entry.enabled === true ? entry : undefined;
}

function termsOf(entry: Record<string, unknown>, code: string): Sep24Terms {
  const read = (key: string): bigint | undefined => {
    try {
      return readTermsAmount(entry[key]);
    } catch (err) {
      throw new UpstreamFailure(`SEP-24 /info: ${code} ${key}: ${(err as Error).message}`);
    }
  };
  const feePercent = read('fee_percent') ?? 0n;
  if (feePercent >= toStroops('100')) throw new UpstreamFailure(`SEP-24 /info: ${code} fee_percent is 100 or more`);
  const min = read('min_amount');
  const max = read('max_amount');
  return {
    feeFixed: read('fee_fixed') ?? 0n,
    feePercent,
    feeMinimum: read('fee_minimum') ?? 0n,
    ...(min !== undefined ? { min } : {}),
    ...(max !== undefined ? { max } : {}),
  };
}

/** The quoted route's /info entry (and the anchor's code for the asset), or undefined when it is not offered. */
async function offeredRoute(
  deps: RampDeps,
  toml: AnchorToml,
  request: RampQuoteRequest,
): Promise<{ code: string; entry: Record<string, unknown> } | undefined> {
  const named = anchorAssetOf(request.asset);
  if (!named || fiatOf(toml, named) !== request.fiatCurrency) return undefined;
  const entry = enabledEntry(await fetchInfo(deps, toml), request.direction, named.code);
  return entry && { code: named.code, entry };
}

export const sep24RampProvider: RampProvider = {
  id: 'sep24',
  name: 'SEP-24 anchor',
  credentialNames: ['anchorDomain'],
  optionalCredentialNames: [],
  upstreamCode: 'SDK_RAMPS_ANCHOR_ERROR',
  // Any app may name an anchor: the anchor's network is checked against the app's on every call.
  availableFor: () => true,

  async routes(deps, call, assets) {
    const toml = await discoverAnchor(deps, call);
    const info = await fetchInfo(deps, toml);
    const routes: RampRoute[] = [];
    for (const asset of assets) {
      const named = anchorAssetOf(asset);
      const fiatCurrency = named && fiatOf(toml, named);
      if (!named || !fiatCurrency) continue;
      for (const direction of ['on', 'off'] as const)
        if (enabledEntry(info, direction, named.code)) routes.push({ direction, fiatCurrency, asset });
    }
    return routes;
  },

  async quote(deps, call, request) {
    const toml = await discoverAnchor(deps, call);
    const route = await offeredRoute(deps, toml, request);
    if (!route)
      throw new RampRefusal({
        kind: 'route_not_offered',
        message: `${toml.domain} does not offer ${request.direction === 'on' ? 'deposits' : 'withdrawals'} of ${request.asset} against ${request.fiatCurrency}`,
      });
    const terms = termsOf(route.entry, route.code);
    const price = priceSep24(request.direction, request.amountIn, toStroops(request.amount), terms);
    if (price.kind === 'out_of_range') {
      const limitAmount = formatAmount(price.limitAmount);
      throw new RampRefusal({
        kind: 'out_of_range',
        limit: price.limit,
        limitAmount,
        limitCurrency: request.fiatCurrency,
        message: `The amount is ${price.limit === 'min' ? 'below the minimum' : 'above the maximum'} of ${limitAmount} ${request.fiatCurrency}`,
      });
    }
    return {
      fiatAmount: formatAmount(price.fiat),
      cryptoAmount: formatAmount(price.crypto),
      fee: formatAmount(price.fee),
      minAmount: formatAmount(price.minAmount),
      maxAmount: formatAmount(price.maxAmount),
      expiresAt: new Date(call.now.getTime() + QUOTE_VALIDITY_MS),
    };
  },

  async start(deps, call, ramp) {
    const toml = await discoverAnchor(deps, call);
    const named = anchorAssetOf(ramp.quote.asset);
    if (!named) throw new RampRefusal({ kind: 'route_not_offered', message: `${ramp.quote.asset} is not an asset` });
    const jwt = await signIn(deps, call, toml);
    await shareCustomer(deps, call, toml, jwt);
    const on = ramp.quote.direction === 'on';
    const what = `SEP-24 ${on ? 'deposit' : 'withdraw'}/interactive`;
    const answer = await anchorRequest(
      deps,
      {
        method: 'POST',
        url: `${toml.transferServer}/transactions/${on ? 'deposit' : 'withdraw'}/interactive`,
        headers: { authorization: `Bearer ${jwt}` },
        body: {
          asset_code: named.code,
          ...(named.issuer ? { asset_issuer: named.issuer } : {}),
          // SEP-24's `amount` is amount_in, what the anchor receives: the fiat of a deposit, the asset of a withdrawal.
          amount: on ? ramp.quote.fiatAmount : ramp.quote.cryptoAmount,
          account: call.user.wallet.publicKey,
          lang: 'en',
          ...(call.user.email ? { email_address: call.user.email } : {}),
        },
      },
      what,
    );
    const url = requiredString(answer, 'url', what, MAX_URL);
    if (!isWebUrl(deps, url)) throw new UpstreamFailure(`${what}: url is not an https URL`);
    return { status: 'pending_kyc', kycUrl: url, providerRef: transactionId(answer, what) };
  },

  async status(deps, call, ramp) {
    if (!ramp.providerRef) throw new UpstreamFailure(`ramp ${ramp.rampTxId} has no anchor transaction id`);
    const toml = await discoverAnchor(deps, call);
    const jwt = await signIn(deps, call, toml);
    const url = new URL(`${toml.transferServer}/transaction`);
    url.searchParams.set('id', ramp.providerRef);
    const what = 'SEP-24 /transaction';
    const answer = await anchorRequest(
      deps,
      { method: 'GET', url: url.toString(), headers: { authorization: `Bearer ${jwt}` } },
      what,
    );
    if (!isRecord(answer.transaction)) throw new UpstreamFailure(`${what}: transaction is not an object`);
    return rampStateOf(deps, answer.transaction, ramp, toml);
  },
};

/** The anchor's transaction id: what the ramp keeps as providerRef and queries by. */
function transactionId(obj: Record<string, unknown>, what: string): string {
  const id = requiredString(obj, 'id', what, 255);
  if (!/^[\x21-\x7e]+$/.test(id)) throw new UpstreamFailure(`${what}: id is not printable ASCII`);
  return id;
}

/** Anchor statuses that end the ramp without the asset delivered (SEP-24 `status`). */
const FAILED = new Set(['error', 'refunded', 'no_market', 'too_small', 'too_large']);
/** Anchor statuses while the anchor, the network or the bank works (or the user's side outside this service). */
const PROCESSING = new Set([
  'pending_anchor',
  'pending_stellar',
  'pending_external',
  'pending_user_transfer_complete',
  'pending_trust',
  'pending_user',
  'pending_customer_info_update',
  'on_hold',
]);

/** The anchor's transaction (GET /transaction), checked, as the ramp's state. */
function rampStateOf(
  deps: RampDeps,
  tx: Record<string, unknown>,
  ramp: StoredRamp,
  toml: AnchorToml,
): ProviderRampState {
  const what = 'SEP-24 transaction';
  const providerRef = transactionId(tx, what);
  if (providerRef !== ramp.providerRef)
    throw new UpstreamFailure(`${what}: asked for ${ramp.providerRef}, got another`);
  const on = ramp.quote.direction === 'on';
  const kind = optionalString(tx, 'kind', what, 40);
  if (kind !== undefined && kind !== (on ? 'deposit' : 'withdrawal'))
    throw new UpstreamFailure(`${what}: a ${kind} where a ${on ? 'deposit' : 'withdrawal'} was started`);
  const status = requiredString(tx, 'status', what, 60);
  const moreInfo = optionalString(tx, 'more_info_url', what, MAX_URL);
  const moreInfoUrl = moreInfo !== undefined && isWebUrl(deps, moreInfo) ? moreInfo : undefined;
  const base = { providerRef };
  if (status === 'incomplete')
    return { ...base, status: 'pending_kyc', ...(moreInfoUrl ? { kycUrl: moreInfoUrl } : {}) };
  if (status === 'pending_user_transfer_start')
    return on
      ? { ...base, status: 'awaiting_deposit', depositInstructions: depositInstructionsOf(tx, ramp, moreInfoUrl) }
      : paymentRequested(base, tx, ramp, toml);
  if (status === 'completed') {
    const hash = optionalString(tx, 'stellar_transaction_id', what, 64);
    if (hash !== undefined && !/^[0-9a-f]{64}$/i.test(hash))
      throw new UpstreamFailure(`${what}: stellar_transaction_id is not a transaction hash`);
    // An off-ramp's on-chain leg is the service's own payment, already recorded; only a deposit's is the anchor's.
    return { ...base, status: 'completed', ...(on && hash ? { stellarTxHash: hash.toLowerCase() } : {}) };
  }
  if (status === 'expired') return { ...base, status: 'expired' };
  if (FAILED.has(status)) {
    const message = optionalString(tx, 'message', what, 10_000);
    return { ...base, status: 'failed', failureReason: `${status}${message ? `: ${message}` : ''}`.slice(0, 500) };
  }
  // A status of a newer SEP version than this list is still a live transaction: keep polling, and say so in the log.
  if (!PROCESSING.has(status)) deps.log.warn({ anchor: toml.domain, status }, 'unknown SEP-24 status: processing');
  return { ...base, status: 'processing' };
}

/** A decimal amount the anchor gave (SEP-24 writes amounts as strings with up to 7 decimals), canonical. */
function amountField(tx: Record<string, unknown>, key: string, what: string): string | undefined {
  const value = optionalString(tx, key, what, 30);
  if (value === undefined) return undefined;
  if (!/^\d{1,15}(?:\.\d{1,7})?$/.test(value) || toStroops(value) === 0n)
    throw new UpstreamFailure(`${what}: ${key} is not a positive amount`);
  return formatAmount(toStroops(value));
}

/**
 * How the user pays a deposit: SEP-24 leaves it to the anchor's pages (`more_info_url`); some anchors also give
 * SEP-6-style `instructions` ({ "organization.bank_account_number": { value, description } }), kept as details.
 */
function depositInstructionsOf(
  tx: Record<string, unknown>,
  ramp: StoredRamp,
  moreInfoUrl: string | undefined,
): DepositInstructions {
  const what = 'SEP-24 transaction instructions';
  const details: Record<string, string> = {};
  const instructions = tx.instructions;
  if (instructions !== undefined && instructions !== null) {
    if (!isRecord(instructions)) throw new UpstreamFailure(`${what}: not an object`);
    const entries = Object.entries(instructions);
    if (entries.length > 19) throw new UpstreamFailure(`${what}: more than 19 fields`);
    for (const [key, field] of entries) {
      if (key.length > 100 || !isRecord(field))
        throw new UpstreamFailure(`${what}: ${key.slice(0, 100)} is not a field`);
      details[key] = requiredString(field, 'value', `${what}: ${key}`, 500);
    }
  }
  if (moreInfoUrl) details.moreInfoUrl = moreInfoUrl;
  return {
    method: 'other',
    amount: amountField(tx, 'amount_in', 'SEP-24 transaction') ?? ramp.quote.fiatAmount,
    currency: ramp.quote.fiatCurrency,
    reference: ramp.providerRef!,
    details,
  };
}

/**
 * A withdrawal the anchor is ready to receive: the payment the service sends once from the user's wallet. The anchor
 * may ask for less than quoted (the user lowered the amount in its page) but never more: such a ramp fails rather than
 * pay more than the user was quoted.
 */
function paymentRequested(
  base: { providerRef: string },
  tx: Record<string, unknown>,
  ramp: StoredRamp,
  toml: AnchorToml,
): ProviderRampState {
  const what = 'SEP-24 withdrawal';
  const destination = requiredString(tx, 'withdraw_anchor_account', what, 56);
  if (!StrKey.isValidEd25519PublicKey(destination))
    throw new UpstreamFailure(`${what}: withdraw_anchor_account is not a G-address`);
  const amount = amountField(tx, 'amount_in', what) ?? ramp.quote.cryptoAmount;
  if (toStroops(amount) > toStroops(ramp.quote.cryptoAmount))
    return {
      ...base,
      status: 'failed',
      failureReason: `the anchor asks for ${amount}, more than the ${ramp.quote.cryptoAmount} quoted`,
    };
  const memo = withdrawMemoOf(tx, what);
  const code = ramp.quote.asset === 'native' ? 'XLM' : ramp.quote.asset.split(':')[0]!;
  const payment: OffRampPayment = {
    destination,
    asset: ramp.quote.asset,
    amount,
    ...(memo ? { memo } : {}),
    action: `Send ${amount} ${code} to ${toml.domain}`,
  };
  return { ...base, status: 'processing', payment };
}

/** The memo the anchor matches the payment by, as the service's payments take it (a hash memo in hex). */
function withdrawMemoOf(tx: Record<string, unknown>, what: string): OffRampPayment['memo'] {
  const value = optionalString(tx, 'withdraw_memo', what, 100);
  if (value === undefined) return undefined;
  const type = optionalString(tx, 'withdraw_memo_type', what, 10);
  switch (type) {
    case 'text':
      if (Buffer.byteLength(value, 'utf8') > 28) throw new UpstreamFailure(`${what}: a text memo over 28 bytes`);
      return { type, value };
    case 'id':
      if (!/^\d{1,20}$/.test(value) || BigInt(value) > 18_446_744_073_709_551_615n)
        throw new UpstreamFailure(`${what}: an id memo that is not a uint64`);
      return { type, value: BigInt(value).toString() };
    case 'hash': {
      // SEP-24 writes a hash memo in base64; some anchors write hex.
      if (/^[0-9a-f]{64}$/i.test(value)) return { type, value: value.toLowerCase() };
      const bytes = /^[A-Za-z0-9+/]{43}=$/.test(value) ? Buffer.from(value, 'base64') : undefined;
      if (bytes?.length !== 32) throw new UpstreamFailure(`${what}: a hash memo that is not 32 bytes`);
      return { type, value: bytes.toString('hex') };
    }
    default:
      // Sending with a guessed memo type could lose the funds: the anchor must say which.
      throw new UpstreamFailure(`${what}: withdraw_memo_type is ${type === undefined ? 'missing' : 'unknown'}`);
  }
}
