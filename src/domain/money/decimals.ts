// Exact decimal arithmetic shared by the ramp providers: amounts as bigints of 7-place units (the ledger's stroops, so
// an asset on Stellar is exact and a fiat cent is 100,000 units), parsed from and written to decimal strings, rounded
// to the cent only where a price says so. Never a float.

/** One fiat cent in 7-place units. */
export const CENT_UNITS = 100_000n;

/**
 * "12.5" -> 12.5 * 10^places, or undefined for anything but a non-negative decimal string. Digits past `places` are
 * accepted only when they are zeros ("10.000000000"): a value finer than the unit would be rounded, not kept.
 */
export function parseDecimal(value: string, places: number): bigint | undefined {
  const match = /^(\d{1,20})(?:\.(\d{1,30}))?$/.exec(value);
  if (!match) return undefined;
  const fraction = match[2] ?? '';
  if (/[1-9]/.test(fraction.slice(places))) return undefined;
  return BigInt(match[1]!) * 10n ** BigInt(places) + BigInt(fraction.slice(0, places).padEnd(places, '0') || '0');
}

export const ceilDiv = (numerator: bigint, denominator: bigint): bigint => (numerator + denominator - 1n) / denominator;
export const ceilToCent = (units: bigint): bigint => ceilDiv(units, CENT_UNITS) * CENT_UNITS;
export const floorToCent = (units: bigint): bigint => (units / CENT_UNITS) * CENT_UNITS;

/** 1234500000n -> "123.45": a fiat amount (units already a whole number of cents) with its two places. */
export function formatCents(units: bigint): string {
  const cents = units / CENT_UNITS;
  return `${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`;
}
