// The event outbox: webhook events written in the same transaction as the change they report, so an event exists
// exactly when its change does. When the app's enabled endpoint subscribes to the event's type, the event is
// `pending` and its first delivery job is enqueued in that same transaction (domain/webhooks/delivery.ts); otherwise
// it is kept as `skipped` (listed in the event log, and sent if an operator redelivers it).
import type { Knex } from 'knex';
import type { JobQueue } from '../../infra/jobs/jobQueue';
import { newId } from '../ids';
import { safeJson } from '../text/safeText';
import { wantsEvent, type WebhookEventName } from '../webhooks/endpoints';
import { enqueueDelivery } from '../webhooks/delivery';

/** The contract's webhook events this service emits so far (WebhookEventName). */
export type OutboxEventType = WebhookEventName;

export interface OutboxEventInput {
  appId: string;
  type: OutboxEventType;
  data: Record<string, unknown>;
  at: Date;
}

export async function recordOutboxEvent(deps: { jobs: JobQueue }, trx: Knex, input: OutboxEventInput): Promise<string> {
  return (await recordOutboxEvents(deps, trx, [input]))[0]!;
}

/**
 * Several events in one insert (a batch of distribution payments settles together), each wanted or not as its app's
 * endpoint says (asked once per app and type); answers their ids in order.
 */
export async function recordOutboxEvents(
  deps: { jobs: JobQueue },
  trx: Knex,
  inputs: OutboxEventInput[],
): Promise<string[]> {
  if (inputs.length === 0) return [];
  const wantedBy = new Map<string, boolean>();
  for (const input of inputs) {
    const key = `${input.appId} ${input.type}`;
    if (!wantedBy.has(key)) wantedBy.set(key, await wantsEvent(trx, input.appId, input.type));
  }
  const rows = inputs.map((input) => {
    const wanted = wantedBy.get(`${input.appId} ${input.type}`)!;
    // Event data may carry chain text (jsonb refuses U+0000): stored in its display form.
    return {
      id: newId('evt'),
      app_id: input.appId,
      type: input.type,
      data: safeJson(input.data),
      created_at: input.at,
      status: wanted ? 'pending' : 'skipped',
      next_attempt_at: wanted ? input.at : null,
    };
  });
  await trx('outbox_events').insert(rows);
  for (const row of rows)
    if (row.status === 'pending') await enqueueDelivery(deps.jobs, trx, { eventId: row.id, cycle: 0 });
  return rows.map((r) => r.id);
}
