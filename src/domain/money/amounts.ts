// XLM amounts as the API writes them (decimal strings, up to 7 places) and as the ledger keeps them (int64 stroops).
// Conversions go through bigint only: a float would round 0.1 + 0.2 away from the ledger's exact value.

export const STROOPS_PER_XLM = 10_000_000n;

/** "2.5" -> 25000000n. Throws on anything but a non-negative decimal with at most 7 places. */
export function toStroops(xlm: string): bigint {
  const match = /^(\d+)(?:\.(\d{1,7}))?$/.exec(xlm);
  if (!match) throw new Error(`not an XLM amount: "${xlm}"`);
  return BigInt(match[1]!) * STROOPS_PER_XLM + BigInt((match[2] ?? '').padEnd(7, '0'));
}

/** 25000000n -> "2.5": the canonical form (no trailing zeros, no trailing point). */
export function fromStroops(stroops: bigint): string {
  const sign = stroops < 0n ? '-' : '';
  const abs = stroops < 0n ? -stroops : stroops;
  const whole = abs / STROOPS_PER_XLM;
  const fraction = (abs % STROOPS_PER_XLM).toString().padStart(7, '0').replace(/0+$/, '');
  return `${sign}${whole}${fraction ? `.${fraction}` : ''}`;
}
