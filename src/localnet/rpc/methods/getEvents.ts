import { StrKey, xdr } from '@stellar/stellar-sdk';
import { RpcCode, RpcError, type JsonObject, type MethodHandler } from '../jsonRpc';
import type { RpcContext } from '../context';
import { invalidParams, objectParam, requireBase64Format, stringParam, uint32Param } from '../params';
import type { AppliedTransaction } from '../../engine';
import type { LedgerRecord } from '../../history/historyStore';
import { eventsOfMeta } from '../../history/txEvents';
import { compareEventCursors, eventId, parseEventCursor, type EventCursor } from '../../history/toid';

export const DEFAULT_EVENTS_LIMIT = 100;
export const MAX_EVENTS_LIMIT = 10000;
/** How many ledgers one request scans at most (stellar-rpc LedgerScanLimit). */
export const EVENTS_LEDGER_SCAN_LIMIT = 10000;
const MAX_FILTERS = 5;
const MAX_CONTRACT_IDS = 5;
const MAX_TOPICS = 5;
const MAX_TOPIC_SEGMENTS = 4;

type Segment = { wildcard: '*' | '**' } | { scval: string };
interface Filter {
  types: Set<string>;
  contractIds: string[];
  topics: Segment[][];
}

function parseSegment(v: unknown): Segment {
  if (typeof v !== 'string') throw invalidParams('invalid parameters: topic segments must be strings');
  if (v === '*' || v === '**') return { wildcard: v };
  try {
    return { scval: xdr.ScVal.fromXdr(v, 'base64').toXdr('base64') };
  } catch {
    throw invalidParams(`invalid parameters: cannot decode topic segment ${v}`);
  }
}

/** Reads and validates one filter, with stellar-rpc's messages ("filter N invalid: ..."). */
function parseFilter(raw: unknown, n: number): Filter {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw invalidParams('invalid parameters: filters must be objects');
  const f = raw as JsonObject;
  const fail = (why: string) => invalidParams(`filter ${n} invalid: ${why}`);
  const typeStr = stringParam(f, 'type');
  const types = new Set(typeStr === '' ? [] : typeStr.split(','));
  for (const t of types)
    if (t !== 'system' && t !== 'contract')
      throw fail("filter type invalid: if set, type must be either 'system' or 'contract'");
  const rawContractIds = f.contractIds === undefined || f.contractIds === null ? [] : f.contractIds;
  if (!Array.isArray(rawContractIds) || !rawContractIds.every((c): c is string => typeof c === 'string'))
    throw invalidParams('invalid parameters: contractIds must be strings');
  const contractIds: string[] = rawContractIds;
  if (contractIds.length > MAX_CONTRACT_IDS) throw fail('maximum 5 contract IDs per filter');
  const rawTopics = f.topics === undefined || f.topics === null ? [] : f.topics;
  if (!Array.isArray(rawTopics)) throw invalidParams('invalid parameters: topics must be an array');
  if (rawTopics.length > MAX_TOPICS) throw fail('maximum 5 topics per filter');
  contractIds.forEach((id: string, i: number) => {
    if (!StrKey.isValidContract(id)) throw fail(`contract ID ${i + 1} invalid`);
  });
  const topics = rawTopics.map((t: unknown, i: number) => {
    if (!Array.isArray(t)) throw invalidParams('invalid parameters: each topic filter must be an array');
    const segments = t.map(parseSegment);
    const trailing =
      segments.length > 0 &&
      'wildcard' in segments[segments.length - 1]! &&
      (segments[segments.length - 1] as { wildcard: string }).wildcard === '**';
    const fixed = trailing ? segments.slice(0, -1) : segments;
    if (segments.length < 1) throw fail(`topic ${i + 1} invalid: topic must have at least 1 segment`);
    const misplaced = fixed.findIndex((s) => 'wildcard' in s && s.wildcard === '**');
    if (misplaced >= 0)
      throw fail(
        `topic ${i + 1} invalid: segment ${misplaced + 1} invalid: wildcard '**' is only allowed as the last segment`,
      );
    if (fixed.length > MAX_TOPIC_SEGMENTS)
      throw fail(`topic ${i + 1} invalid: topic cannot have more than ${MAX_TOPIC_SEGMENTS} segments`);
    return segments;
  });
  return { types, contractIds, topics };
}

function topicMatches(filter: Segment[], topics: string[]): boolean {
  const last = filter[filter.length - 1];
  const flexible = last !== undefined && 'wildcard' in last && last.wildcard === '**';
  const fixed = flexible ? filter.slice(0, -1) : filter;
  if (flexible ? topics.length < fixed.length : topics.length !== fixed.length) return false;
  return fixed.every((s, i) => 'wildcard' in s || s.scval === topics[i]);
}

function filterMatches(f: Filter, type: string, contractId: string, topics: string[]): boolean {
  if (f.types.size && !f.types.has(type)) return false;
  if (f.contractIds.length && !f.contractIds.includes(contractId)) return false;
  if (f.topics.length && !f.topics.some((t) => topicMatches(t, topics))) return false;
  return true;
}

/** Where stellar-rpc files an event: its TOID position (ingest db/event.go) and what it reports with it. */
interface PlacedEvent {
  position: EventCursor;
  event: xdr.ContractEvent;
  tx: AppliedTransaction;
}

const TX_MASK = 0xfffff;
const OP_MASK = 0xfff;

/**
 * A ledger's events in id order, as stellar-rpc stores them: every transaction's BEFORE_ALL_TXS events (the fees) at
 * {ledger, tx 0, op 0, n} numbered across the ledger; then per transaction its operations' events at
 * {ledger, order, op, n} and its AFTER_TX events at {ledger, order, 0xfff, n}; then AFTER_ALL_TXS events at
 * {ledger, 0xfffff, 0, n}. Failed transactions count too (their fee events).
 */
function* ledgerEvents(ledger: LedgerRecord): Generator<PlacedEvent> {
  const split = ledger.transactions.map((tx) => ({ tx, events: eventsOfMeta(tx.resultMetaXdr) }));
  const stage = (e: xdr.TransactionEvent): number => e.stage.value;
  let before = 0;
  for (const { tx, events } of split)
    for (const t of events.transactionEvents)
      if (stage(t) === 0)
        yield { position: { ledger: ledger.sequence, tx: 0, op: 0, event: before++ }, event: t.event, tx };
  for (const { tx, events } of split) {
    for (let op = 0; op < events.contractEvents.length; op++) {
      const list = events.contractEvents[op]!;
      for (let ev = 0; ev < list.length; ev++)
        yield { position: { ledger: ledger.sequence, tx: tx.applicationOrder, op, event: ev }, event: list[ev]!, tx };
    }
    let afterTx = 0;
    for (const t of events.transactionEvents)
      if (stage(t) === 1)
        yield {
          position: { ledger: ledger.sequence, tx: tx.applicationOrder, op: OP_MASK, event: afterTx++ },
          event: t.event,
          tx,
        };
  }
  let after = 0;
  for (const { tx, events } of split)
    for (const t of events.transactionEvents)
      if (stage(t) === 2)
        yield { position: { ledger: ledger.sequence, tx: TX_MASK, op: 0, event: after++ }, event: t.event, tx };
}

/**
 * 1. validate (-32602 for the request shape, -32600 when the start is outside the retained ledgers)
 * 2. scan at most 10,000 ledgers from the start for contract and system events matching any filter: operations'
 *    events (the Stellar Asset Contract's, CAP-67 classic transfers / mints / burns) and transactions' fee events
 * 3. answer them with a cursor: the last event's id when the page is full, else the end of the scanned range.
 */
export function getEvents(ctx: Pick<RpcContext, 'history'>): MethodHandler {
  return (params) => {
    requireBase64Format(params);
    const startLedger = uint32Param(params, 'startLedger');
    const endLedgerParam = uint32Param(params, 'endLedger');
    const pagination = objectParam(params, 'pagination');
    const cursorParam = pagination ? stringParam(pagination, 'cursor') : '';
    const limitParam = pagination ? uint32Param(pagination, 'limit') : 0;
    let cursor: EventCursor | undefined;
    if (cursorParam !== '') {
      cursor = parseEventCursor(cursorParam);
      if (!cursor) throw invalidParams(`invalid parameters: invalid event id ${cursorParam}`);
      if (startLedger !== 0 || endLedgerParam !== 0) throw invalidParams('ledger ranges and cursor cannot both be set');
    } else if (startLedger <= 0) throw invalidParams('startLedger must be positive');
    if (limitParam > MAX_EVENTS_LIMIT) throw invalidParams(`limit must not exceed ${MAX_EVENTS_LIMIT}`);
    const rawFilters = params.filters === undefined || params.filters === null ? [] : params.filters;
    if (!Array.isArray(rawFilters)) throw invalidParams('invalid parameters: filters must be an array');
    if (rawFilters.length > MAX_FILTERS) throw invalidParams('maximum 5 filters per request');
    const filters = rawFilters.map((f, i) => parseFilter(f, i + 1));

    const latest = ctx.history.latest();
    const oldest = ctx.history.oldest();
    const start: EventCursor = cursor
      ? { ...cursor, event: cursor.event + 1 }
      : { ledger: startLedger, tx: 0, op: 0, event: 0 };
    const limit = limitParam > 0 ? limitParam : DEFAULT_EVENTS_LIMIT;
    let endLedger = Math.min(start.ledger + EVENTS_LEDGER_SCAN_LIMIT, latest.sequence + 1);
    if (endLedgerParam !== 0) endLedger = Math.min(endLedgerParam, endLedger);
    if (start.ledger < oldest.sequence || start.ledger > latest.sequence) {
      throw new RpcError(
        RpcCode.InvalidRequest,
        `startLedger must be within the ledger range: ${oldest.sequence} - ${latest.sequence}`,
      );
    }

    const events: Record<string, unknown>[] = [];
    scan: for (const ledger of ctx.history.ledgersFrom(start.ledger)) {
      if (ledger.sequence >= endLedger) break;
      for (const { position, event: e, tx } of ledgerEvents(ledger)) {
        if (compareEventCursors(position, start) < 0) continue;
        const type = e.type.name;
        if (type !== 'system' && type !== 'contract') continue;
        const contractId = e.contractId ? StrKey.encodeContract(Buffer.from(e.contractId.value)) : '';
        const body = e.body.v0;
        // Canonical base64, so filter segments compare as strings.
        const topics = body.topics.map((t) => t.toXdr('base64'));
        if (filters.length && !filters.some((f) => filterMatches(f, type, contractId, topics))) continue;
        events.push({
          type,
          ledger: ledger.sequence,
          ledgerClosedAt: new Date(ledger.closeTime * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
          contractId,
          id: eventId(position, position.event),
          operationIndex: position.op,
          transactionIndex: position.tx,
          txHash: tx.hash,
          inSuccessfulContractCall: tx.successful,
          topic: topics,
          value: body.data.toXdr('base64'),
        });
        if (events.length >= limit) break scan;
      }
    }
    const cursorOut =
      events.length === limit
        ? (events[events.length - 1]!.id as string)
        : eventId({ ledger: endLedger - 1, tx: 0xfffff, op: 0xfff }, 0xffffffff);
    return {
      events,
      cursor: cursorOut,
      latestLedger: latest.sequence,
      oldestLedger: oldest.sequence,
      latestLedgerCloseTime: String(latest.closeTime),
      oldestLedgerCloseTime: String(oldest.closeTime),
    };
  };
}
