import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { requestActor } from '../../domain/audit/auditLog';
import { createPush } from '../../domain/distribution/pushes';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** Records a push of an asset to up to 10,000 of the app's users, paid in the background by the push runner. Audited. */
export function createDistributionPush(deps: Pick<Deps, 'db' | 'clock'>): Handler<'createDistributionPush'> {
  return async (req) => {
    // 1. authorize: any member of an active app
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. resolve the recipients, check the asset and the distribution wallet, store, audit (domain)
    const push = await createPush(deps, app, req.body, {
      actor: requestActor(req.auth),
      at: deps.clock.now(),
      ip: req.ip,
    });
    // 3. respond
    return { content: push };
  };
}
