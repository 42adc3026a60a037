import type { Deps } from '../../domain/deps';
import { requireKeyApp } from '../keyApp';
import { requestActor } from '../../domain/audit/auditLog';
import { retryPush } from '../../domain/distribution/pushes';
import type { Handler } from '../types';

/** Puts a push's failed recipients back to pending, for the push runner to send again. Audited. (the Dashboard's retryDistributionPush, for the secret key's app) */
export function retryServerDistributionPush(deps: Pick<Deps, 'db' | 'clock'>): Handler<'retryServerDistributionPush'> {
  return async (req) => {
    // 1. the key's app
    const app = await requireKeyApp(deps.db, req.auth.apiKey!.appId);
    // 2. failed recipients back to pending, audited (domain)
    const result = await retryPush(deps, app.id, req.path.pushId, {
      actor: requestActor(req.auth),
      at: deps.clock.now(),
      ip: req.ip,
    });
    // 3. respond
    return { content: result };
  };
}
