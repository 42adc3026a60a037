import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { requestActor } from '../../domain/audit/auditLog';
import { retryPush } from '../../domain/distribution/pushes';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** Puts a push's failed recipients back to pending, for the push runner to send again. Audited. */
export function retryDistributionPush(deps: Pick<Deps, 'db' | 'clock'>): Handler<'retryDistributionPush'> {
  return async (req) => {
    // 1. authorize: any member of an active app
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
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
