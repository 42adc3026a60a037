// Delivering webhook events: one queue job per attempt (the `webhook-delivery` job of src/jobs/registry.ts). An
// attempt signs the event (signing.ts), POSTs it through the egress guard (infra/egress), and records the attempt and
// the event's new state in one transaction, which also enqueues the next attempt when one is due:
//   2xx: delivered. 410 Gone: failed, and the endpoint is disabled. Anything else (another status, a redirect, a
//   refused address, no answer within the time-out): another attempt after the schedule's next delay (with jitter,
//   longer when the answer's Retry-After asks for it, at most 24 h), until the schedule's attempts are used up
//   (5 by default: 0, 1 min, 10 min, 1 h, 24 h), then failed. `stellar.tx` is tried once, as the contract says.
// Delivery is at least once: an attempt whose worker dies after sending is sent again (the same `webhook-id`).
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { JobQueue } from '../../infra/jobs/jobQueue';
import { postOnce, type EgressAnswer } from '../../infra/egress/post';
import { DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from '../../config';
import type { Clock } from '../deps';
import type { Sealer } from '../secrets/sealed';
import { deliveryTarget, disableGoneEndpoint } from './endpoints';
import { signatureHeaders } from './signing';
import { safeText } from '../text/safeText';

export const WEBHOOK_DELIVERY_JOB = 'webhook-delivery';

/** The longest wait a Retry-After may ask for. */
const MAX_RETRY_AFTER_SECONDS = 86_400;

export interface DeliveryDeps {
  db: Knex;
  jobs: JobQueue;
  clock: Clock;
  log: Pick<Logger, 'warn' | 'info' | 'debug'>;
  secrets: Sealer;
  webhooks?: WebhookSettings;
}

interface EventRow {
  id: string;
  app_id: string;
  type: string;
  data: Record<string, unknown>;
  created_at: Date;
  status: 'pending' | 'delivered' | 'failed' | 'skipped';
  attempts: number;
  delivery_cycle: number;
}

/** A delivery job's data: which event, in which delivery cycle (a redelivery starts a new one). */
export interface DeliveryJob {
  eventId: string;
  cycle: number;
}

function settingsOf(deps: Pick<DeliveryDeps, 'webhooks'>): WebhookSettings {
  return deps.webhooks ?? DEFAULT_WEBHOOK_SETTINGS;
}

/** Enqueues an attempt inside the caller's transaction (it exists exactly when the transaction commits). */
export async function enqueueDelivery(jobs: JobQueue, trx: Knex, job: DeliveryJob, startAfter?: Date): Promise<void> {
  await jobs.send(WEBHOOK_DELIVERY_JOB, job, { trx, ...(startAfter ? { startAfter } : {}) });
}

/** The job's data as enqueued, or undefined for anything else (a job's data is read, not trusted). */
function deliveryJobOf(data: unknown): DeliveryJob | undefined {
  const { eventId, cycle } = (data ?? {}) as { eventId?: unknown; cycle?: unknown };
  if (typeof eventId !== 'string' || !/^evt_[0-9A-Za-z]{1,60}$/.test(eventId)) return undefined;
  if (typeof cycle !== 'number' || !Number.isSafeInteger(cycle) || cycle < 0) return undefined;
  return { eventId, cycle };
}

/** How many attempts an event of this type gets. */
export function attemptsFor(type: string, settings: WebhookSettings): number {
  return type === 'stellar.tx' ? 1 : settings.retryScheduleSeconds.length;
}

/** The body sent for an event: `{ id, event, timestamp, data }` (timestamp: when the event happened). */
export function eventBody(row: Pick<EventRow, 'id' | 'type' | 'created_at' | 'data'>): string {
  return JSON.stringify({ id: row.id, event: row.type, timestamp: row.created_at.toISOString(), data: row.data });
}

/** The wait before attempt `next` (1-based): the schedule's delay with ±10 % jitter, or a longer Retry-After. */
function delayBefore(next: number, settings: WebhookSettings, retryAfterSeconds?: number): number {
  const base = (settings.retryScheduleSeconds[next - 1] ?? 0) * 1000;
  const jittered = base * (0.9 + Math.random() * 0.2);
  const asked = Math.min(retryAfterSeconds ?? 0, MAX_RETRY_AFTER_SECONDS) * 1000;
  return Math.max(jittered, asked);
}

function failureOf(answer: EgressAnswer): string {
  if (answer.kind === 'failed') return answer.error;
  if (answer.status >= 300 && answer.status < 400)
    return `Endpoint answered ${answer.status} (redirects are not followed)`;
  return `Endpoint answered ${answer.status}`;
}

/** One attempt for the job's event (the `webhook-delivery` job's handler). */
export async function deliverWebhookEvent(deps: DeliveryDeps, data: unknown): Promise<void> {
  const job = deliveryJobOf(data);
  if (!job) {
    deps.log.warn({ data }, 'webhook delivery job with unreadable data set aside');
    return;
  }
  const settings = settingsOf(deps);
  const event = await deps.db<EventRow>('outbox_events').where({ id: job.eventId }).first();
  // Delivered meanwhile, or a job of an earlier cycle (the event was redelivered): nothing to do.
  if (!event || event.status !== 'pending' || event.delivery_cycle !== job.cycle) return;
  const now = deps.clock.now();
  const target = await deliveryTarget(deps, event.app_id, now);
  const attempt = event.attempts + 1;
  let answer: EgressAnswer;
  if (!target) {
    answer = { kind: 'failed', error: 'The app has no enabled webhook endpoint', latencyMs: 0 };
  } else {
    const body = eventBody(event);
    const headers = signatureHeaders(target.secrets, { eventId: event.id, timestamp: now, body });
    answer = await postOnce(target.url, body, headers, {
      timeoutMs: settings.timeoutMs,
      policy: { allowInsecure: settings.allowInsecure },
    });
  }
  const delivered = answer.kind === 'answered' && answer.status >= 200 && answer.status < 300;
  const gone = answer.kind === 'answered' && answer.status === 410;
  const lastAttempt = !target || gone || attempt >= attemptsFor(event.type, settings);
  const at = deps.clock.now();
  await deps.db.transaction(async (trx) => {
    const current = await trx<EventRow>('outbox_events').where({ id: event.id }).forUpdate().first();
    // A redelivery started a new cycle while this attempt was out: its outcome is logged, the new cycle goes on.
    const sameCycle = current?.status === 'pending' && current.delivery_cycle === job.cycle;
    await trx('webhook_attempts').insert({
      event_id: event.id,
      app_id: event.app_id,
      attempt,
      url: target?.url ?? '(none)',
      attempted_at: now,
      status_code: answer.kind === 'answered' ? answer.status : null,
      latency_ms: answer.latencyMs,
      error: delivered ? null : failureOf(answer),
      // The receiver's text is hostile: a NUL (which PostgreSQL refuses) must not fail the attempt's record.
      response_excerpt: answer.kind === 'answered' ? safeText(answer.excerpt) : null,
    });
    if (!sameCycle) return;
    const common = {
      attempts: attempt,
      last_status_code: answer.kind === 'answered' ? answer.status : null,
      last_error: delivered ? null : failureOf(answer),
    };
    if (delivered) {
      await trx('outbox_events')
        .where({ id: event.id })
        .update({ ...common, status: 'delivered', delivered_at: at, next_attempt_at: null });
    } else if (lastAttempt) {
      await trx('outbox_events')
        .where({ id: event.id })
        .update({ ...common, status: 'failed', next_attempt_at: null });
      if (gone) await disableGoneEndpoint(trx, event.app_id, at);
    } else {
      const next = new Date(
        at.getTime() +
          delayBefore(attempt + 1, settings, answer.kind === 'answered' ? answer.retryAfterSeconds : undefined),
      );
      await trx('outbox_events')
        .where({ id: event.id })
        .update({ ...common, next_attempt_at: next });
      await enqueueDelivery(deps.jobs, trx, job, next);
    }
  });
  const outcome = delivered ? 'delivered' : lastAttempt ? 'failed' : 'will retry';
  deps.log[delivered ? 'debug' : 'info'](
    { eventId: event.id, appId: event.app_id, attempt, outcome, ...(delivered ? {} : { error: failureOf(answer) }) },
    `webhook attempt: ${outcome}`,
  );
}
