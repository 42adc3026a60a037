import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { redeliverWebhookEvent as redeliver } from '../../domain/webhooks/eventLog';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** Queues one event for delivery again (a new cycle of attempts); the answer comes when it is queued. */
export function redeliverWebhookEvent(
  deps: Pick<Deps, 'db' | 'clock' | 'secrets' | 'jobs'>,
): Handler<'redeliverWebhookEvent'> {
  return async (req) => {
    // 1. authenticate and authorize (any member, as for the app's other settings)
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. queue it (404 WEBHOOK_EVENT_NOT_FOUND, 409 WEBHOOK_NOT_CONFIGURED) and respond
    return { content: await redeliver(deps, { appId: app.id, eventId: req.path.eventId, at: deps.clock.now() }) };
  };
}
