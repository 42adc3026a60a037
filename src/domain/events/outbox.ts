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

export async function recordOutboxEvent(
  deps: { jobs: JobQueue },
  trx: Knex,
  input: { appId: string; type: OutboxEventType; data: Record<string, unknown>; at: Date },
): Promise<string> {
  const id = newId('evt');
  const wanted = await wantsEvent(trx, input.appId, input.type);
  // Event data may carry chain text (jsonb refuses U+0000): stored in its display form.
  await trx('outbox_events').insert({
    id,
    app_id: input.appId,
    type: input.type,
    data: safeJson(input.data),
    created_at: input.at,
    status: wanted ? 'pending' : 'skipped',
    next_attempt_at: wanted ? input.at : null,
  });
  if (wanted) await enqueueDelivery(deps.jobs, trx, { eventId: id, cycle: 0 });
  return id;
}
