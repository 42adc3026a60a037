// The webhook event log (Build, Webhooks): every event of the app with its delivery state and its attempts, newest
// first, with offset or keyset-cursor paging; and redelivery of one event.
import type { Knex } from 'knex';
import type { JobQueue } from '../../infra/jobs/jobQueue';
import { AppError } from '../errors';
import { encodeCursor, type KeysetCursor } from '../paging/cursor';
import { deliveryTarget, type WebhookEventName } from './endpoints';
import { enqueueDelivery } from './delivery';
import type { Sealer } from '../secrets/sealed';

export type EventStatus = 'pending' | 'delivered' | 'failed' | 'skipped';

/** Attempts shown per event (the latest). */
const ATTEMPTS_SHOWN = 10;

interface EventRow {
  id: string;
  type: string;
  status: EventStatus;
  attempts: number;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  delivered_at: Date | null;
}

interface AttemptRow {
  event_id: string;
  attempt: number;
  attempted_at: Date;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_excerpt: string | null;
}

export interface AttemptView {
  attempt: number;
  attemptedAt: string;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  responseExcerpt: string | null;
}

export interface EventView {
  eventId: string;
  event: WebhookEventName;
  status: EventStatus;
  attempts: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
  attemptLog: AttemptView[];
}

function toView(row: EventRow, attempts: AttemptRow[]): EventView {
  return {
    eventId: row.id,
    // Only recordOutboxEvent writes events, with the contract's names.
    event: row.type as WebhookEventName,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.status === 'pending' ? (row.next_attempt_at?.toISOString() ?? null) : null,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    createdAt: row.created_at.toISOString(),
    deliveredAt: row.delivered_at?.toISOString() ?? null,
    attemptLog: attempts.map((a) => ({
      attempt: a.attempt,
      attemptedAt: a.attempted_at.toISOString(),
      statusCode: a.status_code,
      latencyMs: a.latency_ms,
      error: a.error,
      responseExcerpt: a.response_excerpt,
    })),
  };
}

const EVENT_COLUMNS = [
  'id',
  'type',
  'status',
  'attempts',
  'next_attempt_at',
  'last_status_code',
  'last_error',
  'created_at',
  'delivered_at',
] as const;

/** The latest attempts of each event, oldest first within an event. */
async function attemptsOf(db: Knex, eventIds: string[]): Promise<Map<string, AttemptRow[]>> {
  const byEvent = new Map<string, AttemptRow[]>();
  if (eventIds.length === 0) return byEvent;
  const rows = await db<AttemptRow>('webhook_attempts')
    .whereIn('event_id', eventIds)
    .orderBy([{ column: 'event_id' }, { column: 'attempted_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .select('event_id', 'attempt', 'attempted_at', 'status_code', 'latency_ms', 'error', 'response_excerpt');
  for (const row of rows) {
    const list = byEvent.get(row.event_id) ?? [];
    if (list.length < ATTEMPTS_SHOWN) list.push(row);
    byEvent.set(row.event_id, list);
  }
  for (const list of byEvent.values()) list.reverse();
  return byEvent;
}

export interface EventQuery {
  appId: string;
  status?: EventStatus;
  event?: string;
  limit: number;
  offset: number;
  cursor?: KeysetCursor;
}

/** Whether `cursor` names an event of this app: a cursor from another list or app is refused, not followed. */
export async function isEventCursorOfApp(db: Knex, appId: string, cursor: KeysetCursor): Promise<boolean> {
  return Boolean(await db('outbox_events').where({ id: cursor.afterId, app_id: appId }).first('id'));
}

/** A page of the app's events, newest first (ties broken by id, so pages never overlap or skip). */
export async function listWebhookEvents(
  db: Knex,
  q: EventQuery,
): Promise<{ events: EventView[]; total: number; offset: number; nextCursor: string | null }> {
  const matching = () => {
    const query = db('outbox_events').where({ app_id: q.appId });
    if (q.status !== undefined) query.where({ status: q.status });
    if (q.event !== undefined) query.where({ type: q.event });
    return query;
  };
  const page = matching()
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(q.limit + 1)
    .select<EventRow[]>(...EVENT_COLUMNS);
  if (q.cursor)
    page.whereRaw('(created_at, id) < (select c.created_at, c.id from outbox_events c where c.id = ?)', [
      q.cursor.afterId,
    ]);
  else page.offset(q.offset);
  const [rows, counted] = await Promise.all([page, matching().count<{ count: string }[]>({ count: '*' })]);
  const offset = q.cursor ? q.cursor.offset : q.offset;
  const shown = rows.slice(0, q.limit);
  const attempts = await attemptsOf(
    db,
    shown.map((r) => r.id),
  );
  const last = shown.at(-1);
  return {
    events: shown.map((r) => toView(r, attempts.get(r.id) ?? [])),
    total: Number(counted[0]?.count ?? 0),
    offset,
    nextCursor:
      rows.length > q.limit && last ? encodeCursor({ afterId: last.id, offset: offset + shown.length }) : null,
  };
}

/**
 * Queues the event for delivery again, whatever its state: a new cycle (attempts from 0, sent at once) to the current
 * URL with the current secret; a job of an earlier cycle still queued then does nothing. 404 WEBHOOK_EVENT_NOT_FOUND,
 * 409 WEBHOOK_NOT_CONFIGURED without an enabled endpoint.
 */
export async function redeliverWebhookEvent(
  deps: { db: Knex; jobs: JobQueue; secrets: Sealer },
  input: { appId: string; eventId: string; at: Date },
): Promise<EventView> {
  if (!(await deliveryTarget(deps, input.appId, input.at)))
    throw new AppError('WEBHOOK_NOT_CONFIGURED', { message: 'The app has no enabled webhook endpoint' });
  return deps.db.transaction(async (trx) => {
    const row = await trx<{ id: string; app_id: string; delivery_cycle: number }>('outbox_events')
      .where('id', input.eventId)
      .andWhere('app_id', input.appId)
      .forUpdate()
      .first('id', 'delivery_cycle');
    if (!row) throw new AppError('WEBHOOK_EVENT_NOT_FOUND', { message: 'No webhook event with this id in the app' });
    const cycle = row.delivery_cycle + 1;
    await trx('outbox_events').where({ id: row.id }).update({
      status: 'pending',
      attempts: 0,
      delivery_cycle: cycle,
      next_attempt_at: input.at,
      delivered_at: null,
    });
    await enqueueDelivery(deps.jobs, trx, { eventId: row.id, cycle });
    const updated = await trx<EventRow>('outbox_events')
      .where({ id: row.id })
      .first(...EVENT_COLUMNS);
    return toView(updated!, (await attemptsOf(trx, [row.id])).get(row.id) ?? []);
  });
}
