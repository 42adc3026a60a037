import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { requestActor } from '../../domain/audit/auditLog';
import { deleteRule } from '../../domain/distribution/rules';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** Deletes a distribution rule (its claims stay in the history); it is not found from then on. Audited. */
export function deleteDistributionRule(deps: Pick<Deps, 'db' | 'clock'>): Handler<'deleteDistributionRule'> {
  return async (req) => {
    // 1. authenticate and authorize
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. delete and audit (domain); a rule of another app or already deleted is not found
    await deleteRule(deps, app, req.path.ruleId, {
      actor: requestActor(req.auth),
      at: deps.clock.now(),
      ip: req.ip,
    });
    // 3. respond
    return { content: { ruleId: req.path.ruleId, deleted: true } };
  };
}
