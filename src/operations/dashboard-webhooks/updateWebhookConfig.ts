import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { requestActor } from '../../domain/audit/auditLog';
import { updateWebhookConfig as saveWebhookConfig } from '../../domain/webhooks/endpoints';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/**
 * Replaces the webhook endpoint settings (any member, as the app's other settings). The URL is checked against the
 * egress rules (422 WEBHOOK_URL_NOT_ALLOWED) before anything is stored; the first URL's secret is shown once. Audited.
 */
export function updateWebhookConfig(
  deps: Pick<Deps, 'db' | 'clock' | 'secrets' | 'webhooks'>,
): Handler<'updateWebhookConfig'> {
  return async (req) => {
    // 1. authenticate and authorize
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. check the URL, store, audit (domain: one transaction after the URL check)
    const content = await saveWebhookConfig(deps, {
      appId: app.id,
      url: req.body.url,
      enabled: req.body.enabled,
      events: req.body.events,
      asymmetricSignature: req.body.asymmetricSignature ?? false,
      actor: requestActor(req.auth),
      at: deps.clock.now(),
      ip: req.ip,
    });
    // 3. respond
    return { content };
  };
}
