// Exact amounts for the Bridge adapter: every amount is a bigint of 7-place units (the ledger's stroops, so USDC on
// Stellar is exact and a fiat cent is 100000 units) and every rate a bigint scaled by 10^12. Bridge writes amounts
// and rates as decimal strings; they are parsed here, never through a float.
import { fromStroops } from '../money/amounts';
import { CENT_UNITS, ceilDiv, formatCents, parseDecimal } from '../money/decimals';
import { UpstreamFailure } from './upstream';

export const CRYPTO_PLACES = 7;
/** One cent in 7-place units: fiat amounts are multiples of it. */
export const FIAT_STEP = CENT_UNITS;
export const RATE_PLACES = 12;
export const RATE_ONE = 10n ** BigInt(RATE_PLACES);

/** A decimal string Bridge sent, in `places` units (money/decimals.ts parseDecimal). */
export const bridgeAmount = parseDecimal;

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

export const formatFiat = formatCents;

/** 7-place units -> the canonical decimal ("2.5"). */
export function formatCrypto(units: bigint): string {
  return fromStroops(units);
}

export { ceilDiv };
