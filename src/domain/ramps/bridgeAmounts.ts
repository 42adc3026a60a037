// Exact amounts for the Bridge adapter: every amount is a bigint of 7-place units (the ledger's stroops, so USDC on
// Stellar is exact and a fiat cent is 100000 units) and every rate a bigint scaled by 10^12. Bridge writes amounts
// and rates as decimal strings; they are parsed here, never through a float.
import { fromStroops } from '../money/amounts';
import { UpstreamFailure } from './upstream';

export const CRYPTO_PLACES = 7;
/** One cent in 7-place units: fiat amounts are multiples of it. */
export const FIAT_STEP = 100_000n;
export const RATE_PLACES = 12;
export const RATE_ONE = 10n ** BigInt(RATE_PLACES);

/**
 * "12.5" -> 12.5 * 10^places, or undefined for anything but a non-negative decimal string. Digits past `places` are
 * accepted only when they are zeros ("10.000000000"): a value finer than the unit would be rounded, not kept.
 */
export function bridgeAmount(value: string, places: number): bigint | undefined {
  const match = /^(\d{1,20})(?:\.(\d{1,30}))?$/.exec(value);
  if (!match) return undefined;
  const fraction = match[2] ?? '';
  if (/[1-9]/.test(fraction.slice(places))) return undefined;
  return BigInt(match[1]!) * 10n ** BigInt(places) + BigInt(fraction.slice(0, places).padEnd(places, '0') || '0');
}

/** bridgeAmount for a value Bridge sent: anything else is Bridge answering nonsense (an UpstreamFailure). */
export function bridgeUnits(value: string, places: number, what: string): bigint {
  const units = bridgeAmount(value, places);
  if (units === undefined) throw new UpstreamFailure(`Bridge ${what}: "${value.slice(0, 40)}" is not a decimal amount`);
  return units;
}

/** A fiat amount Bridge sent, as the contract writes it ("10.0" -> "10.00"); finer than a cent is refused. */
export function bridgeFiatString(value: string, what: string): string {
  const units = bridgeUnits(value, CRYPTO_PLACES, what);
  if (units % FIAT_STEP !== 0n) throw new UpstreamFailure(`Bridge ${what}: "${value}" is finer than a cent`);
  return formatFiat(units);
}

/** 1234500000n -> "123.45" (units already a whole number of cents). */
export function formatFiat(units: bigint): string {
  const cents = units / FIAT_STEP;
  return `${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`;
}

/** 7-place units -> the canonical decimal ("2.5"). */
export function formatCrypto(units: bigint): string {
  return fromStroops(units);
}

export function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator;
}
