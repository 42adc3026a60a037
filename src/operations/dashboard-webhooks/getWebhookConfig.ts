import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { getWebhookConfig as readWebhookConfig } from '../../domain/webhooks/endpoints';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** The app's webhook endpoint settings (never the secret), for any member. */
export function getWebhookConfig(deps: Pick<Deps, 'db'>): Handler<'getWebhookConfig'> {
  return async (req) => {
    // 1. authorize: any member of an active app
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. read and respond
    return { content: await readWebhookConfig(deps.db, app.id) };
  };
}
