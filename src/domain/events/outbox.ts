// The event outbox (migration 0014): webhook-ready events written in the same transaction as the change they report,
// so an event exists exactly when its change does. Delivery (signing, retries) reads `outbox_events` later.
import type { Knex } from 'knex';
import { newId } from '../ids';
import { safeJson } from '../text/safeText';

/** The contract's webhook events this service emits so far (WebhookEventName). */
export type OutboxEventType =
  | 'wallet.created'
  | 'wallet.activated'
  | 'trustline.added'
  | 'sponsor.balance.low'
  | 'stellar.tx'
  | 'payment.sent'
  | 'payment.received';

export async function recordOutboxEvent(
  trx: Knex,
  input: { appId: string; type: OutboxEventType; data: Record<string, unknown>; at: Date },
): Promise<string> {
  const id = newId('evt');
  // Event data may carry chain text (jsonb refuses U+0000): stored in its display form.
  await trx('outbox_events').insert({
    id,
    app_id: input.appId,
    type: input.type,
    data: safeJson(input.data),
    created_at: input.at,
  });
  return id;
}
