// Stellar's TOID ("total order id", stellar/go toid): ledger << 32 | transaction order << 12 | operation order.
// getTransactions' cursor is the decimal TOID of the last transaction returned; getEvents' ids are
// "<19-digit TOID>-<10-digit event index>".

const TX_MASK = 0xfffffn; // 20 bits
const OP_MASK = 0xfffn; // 12 bits

export interface Toid {
  ledger: number;
  tx: number;
  op: number;
}

export function toidToBigInt({ ledger, tx, op }: Toid): bigint {
  return (BigInt(ledger) << 32n) | ((BigInt(tx) & TX_MASK) << 12n) | (BigInt(op) & OP_MASK);
}

export function toidFromBigInt(id: bigint): Toid {
  return { ledger: Number((id >> 32n) & 0x7fffffffn), tx: Number((id >> 12n) & TX_MASK), op: Number(id & OP_MASK) };
}

/** Parses a decimal int64 the way Go's strconv.ParseInt(s, 10, 64) does; undefined when it would fail. */
export function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  const v = BigInt(s);
  if (v > 0x7fffffffffffffffn || v < -0x8000000000000000n) return undefined;
  return v;
}

export function eventId(toid: Toid, eventIndex: number): string {
  return `${toidToBigInt(toid).toString().padStart(19, '0')}-${String(eventIndex).padStart(10, '0')}`;
}

export interface EventCursor extends Toid {
  event: number;
}

/** Parses an event id/cursor ("<toid>-<event>"); undefined when malformed. */
export function parseEventCursor(s: string): EventCursor | undefined {
  const dash = s.indexOf('-');
  if (dash < 0) return undefined;
  const id = parseInt64(s.slice(0, dash));
  const ev = s.slice(dash + 1);
  if (id === undefined || !/^\d+$/.test(ev) || Number(ev) > 0xffffffff) return undefined;
  return { ...toidFromBigInt(id), event: Number(ev) };
}

export function compareEventCursors(a: EventCursor, b: EventCursor): number {
  return a.ledger - b.ledger || a.tx - b.tx || a.op - b.op || a.event - b.event;
}
