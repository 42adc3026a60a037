// How dates and amounts are written across the dashboard. Amounts stay the decimal strings the API sends (never
// parsed into floats); only their trailing zeros are trimmed for reading.

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A timestamp for people, in the browser's time zone; '—' when absent. */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : dateTime.format(at);
}

/** "12.5000000" -> "12.5"; "3.0000000" -> "3". */
export function trimAmount(amount: string): string {
  return amount.includes('.') ? amount.replace(/0+$/, '').replace(/\.$/, '') : amount;
}

/** A G-address or hash shortened for tables (the full value in the title). */
export function shortKey(value: string): string {
  return value.length > 16 ? `${value.slice(0, 6)}…${value.slice(-6)}` : value;
}
