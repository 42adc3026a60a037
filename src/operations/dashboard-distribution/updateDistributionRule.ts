import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { requestActor } from '../../domain/audit/auditLog';
import { ruleView, updateRule } from '../../domain/distribution/rules';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** Changes a distribution rule; later claims follow the new values, claims made keep theirs. Audited. */
export function updateDistributionRule(deps: Pick<Deps, 'db' | 'clock'>): Handler<'updateDistributionRule'> {
  return async (req) => {
    // 1. authenticate and authorize
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. check and change under the rule's lock, audit (domain); a rule of another app or deleted is not found
    const rule = await updateRule(deps, app, req.path.ruleId, req.body, {
      actor: requestActor(req.auth),
      at: deps.clock.now(),
      ip: req.ip,
    });
    // 3. respond
    return { content: ruleView(rule) };
  };
}
