// Pricing a SEP-24 ramp from the anchor's published terms. SEP-24 has no firm quote: an anchor's GET /info gives, per
// asset and direction, optional bounds (`min_amount`, `max_amount`) and a simple fee schedule (`fee_fixed` +
// `fee_percent` of the amount, at least `fee_minimum`), all in units of the asset, which SEP-24 ramps 1:1 against its
// fiat (USD <> USDC). This turns those terms into the contract's quote, exactly: every amount is a bigint of stroops
// (7 decimals) and the fiat leg is whole cents, so no float ever touches money.
//
// Which amount the terms apply to is SEP-24's `amount_in`, what the anchor receives: the fiat paid in for an on-ramp
// (deposit), the asset sent for an off-ramp (withdrawal). The fee comes off it; what is left goes out.
// An anchor whose fees do not fit this model omits them (SEP-24 then points at its deprecated /fee or SEP-38): the
// quote then shows no fee and the anchor's interactive flow shows the real one.
import { fromStroops, toStroops } from '../money/amounts';
import { CENT_UNITS, ceilDiv, ceilToCent, floorToCent } from '../money/decimals';

/** Stroops in one cent: a fiat leg is a whole number of cents. */
export const CENT = CENT_UNITS;

/** The largest amount a Stellar asset can have (int64 stroops): the bound of a route whose anchor names no maximum. */
export const MAX_ASSET_STROOPS = 9_223_372_036_854_775_807n;

/** `fee_percent` is in percentage points; kept, like amounts, as an integer of 10^-7 units (1.5 % -> 15_000_000n). */
const PERCENT_SCALE = 100n * 10_000_000n;

/** One direction of one asset at the anchor, from its /info (all in stroops). */
export interface Sep24Terms {
  feeFixed: bigint;
  /** Percentage points x 10^7; below 100 % (the reader refuses more: nothing would be left to pay out). */
  feePercent: bigint;
  feeMinimum: bigint;
  min?: bigint;
  max?: bigint;
}

export type Sep24Price =
  | { kind: 'priced'; fiat: bigint; crypto: bigint; fee: bigint; minAmount: bigint; maxAmount: bigint }
  | { kind: 'out_of_range'; limit: 'min' | 'max'; limitAmount: bigint };

const ceilCents = ceilToCent;
const floorCents = floorToCent;
/** Half up: a fiat amount typed with more than 2 decimals is priced at the nearest cent (the quote shows it). */
const roundCents = (stroops: bigint): bigint => ((stroops + CENT / 2n) / CENT) * CENT;
const maxOf = (a: bigint, b: bigint): bigint => (a > b ? a : b);

/** The anchor's fee on `amountIn`, rounded up to the cent (the quote errs towards the user paying enough). */
export function feeOn(amountIn: bigint, terms: Sep24Terms): bigint {
  const percent = ceilDiv(amountIn * terms.feePercent, PERCENT_SCALE);
  return ceilCents(maxOf(terms.feeFixed + percent, terms.feeMinimum));
}

/**
 * The smallest `amount_in` (whole cents) that leaves at least `net` once the fee is taken. `x - feeOn(x)` never
 * decreases as x grows by a cent (the fee grows by at most a cent while the percentage is below 100), so the estimate
 * from the closed form is corrected by a step or two, never searched.
 */
export function amountInFor(net: bigint, terms: Sep24Terms): bigint {
  const leaves = (x: bigint) => x - feeOn(x, terms) >= net;
  let x = ceilCents(ceilDiv((net + terms.feeFixed) * PERCENT_SCALE, PERCENT_SCALE - terms.feePercent));
  x = maxOf(x, ceilCents(net + terms.feeMinimum));
  for (let steps = 0; !leaves(x); steps++) {
    if (steps > 1_000) throw new Error('the fee schedule leaves nothing to pay out');
    x += CENT;
  }
  while (x > CENT && leaves(x - CENT)) x -= CENT;
  return x;
}

/**
 * Prices `amount` (stroops; fiat or asset per `amountIn`) in `direction` under the anchor's terms:
 * - on: fiat F paid in (whole cents), the asset delivered is F - fee;
 * - off: the asset C sent, the fiat paid out is F = C - fee, down to the cent (a fraction of a cent cannot be paid).
 * Given the other leg, the smallest amount_in that reaches it is priced. Bounds apply to amount_in; an amount too small
 * to cover the fee is below the minimum (the smallest amount that pays out a cent).
 */
export function priceSep24(
  direction: 'on' | 'off',
  amountIn: 'fiat' | 'crypto',
  amount: bigint,
  terms: Sep24Terms,
): Sep24Price {
  const smallest = amountInFor(CENT, terms);
  const minAmount = maxOf(terms.min !== undefined ? ceilCents(terms.min) : 0n, smallest);
  const maxAmount = floorCents(terms.max ?? MAX_ASSET_STROOPS);
  // The anchor's own amount_in: fiat for a deposit, the asset for a withdrawal.
  const paidIn =
    (direction === 'on') === (amountIn === 'fiat')
      ? direction === 'on'
        ? roundCents(amount)
        : amount
      : amountInFor(direction === 'on' ? amount : roundCents(amount), terms);
  if (paidIn < minAmount) return { kind: 'out_of_range', limit: 'min', limitAmount: minAmount };
  if (paidIn > maxAmount) return { kind: 'out_of_range', limit: 'max', limitAmount: maxAmount };
  const fee = feeOn(paidIn, terms);
  return direction === 'on'
    ? { kind: 'priced', fiat: paidIn, crypto: paidIn - fee, fee, minAmount, maxAmount }
    : { kind: 'priced', fiat: floorCents(paidIn - fee), crypto: paidIn, fee, minAmount, maxAmount };
}

/**
 * An amount of the anchor's /info (a JSON number or a decimal string) as stroops; undefined when absent. A JSON number
 * is read through its 7-decimal rendering (toFixed rounds the parsed double to the nearest stroop, which is the
 * anchor's literal for any amount below 10^8 with at most 7 decimals); no arithmetic ever runs on it as a float.
 * Throws a plain Error naming the problem for anything else (the caller makes it an upstream failure).
 */
export function readTermsAmount(value: unknown): bigint | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0 || value >= 1e15) throw new Error(`${value} is not an amount`);
    return toStroops(value.toFixed(7));
  }
  if (typeof value === 'string' && /^\d{1,15}(?:\.\d{1,7})?$/.test(value)) return toStroops(value);
  throw new Error(`${JSON.stringify(value)} is not an amount`);
}

/** Stroops as the contract writes an amount (canonical decimal string). */
export const formatAmount = (stroops: bigint): string => fromStroops(stroops);
