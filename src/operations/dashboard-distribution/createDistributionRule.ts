import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { requestActor } from '../../domain/audit/auditLog';
import { createRule, ruleView } from '../../domain/distribution/rules';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/**
 * Adds a token distribution rule (any member, as the app's other settings). Audited. Idempotency-Key is applied by the
 * router around this handler (src/http/idempotency.ts), as for every operation whose contract declares it.
 */
export function createDistributionRule(deps: Pick<Deps, 'db' | 'clock'>): Handler<'createDistributionRule'> {
  return async (req) => {
    // 1. authenticate and authorize
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. check the values, the asset and the distribution wallet, store, audit (domain)
    const rule = await createRule(deps, app, req.body, {
      actor: requestActor(req.auth),
      at: deps.clock.now(),
      ip: req.ip,
    });
    // 3. respond
    return { content: ruleView(rule) };
  };
}
