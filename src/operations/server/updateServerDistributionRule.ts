import type { Deps } from '../../domain/deps';
import { requestActor } from '../../domain/audit/auditLog';
import { ruleView, updateRule } from '../../domain/distribution/rules';
import { requireKeyApp } from '../keyApp';
import type { Handler } from '../types';

/** Changes a distribution rule of the secret key's app; later claims follow the new values. Audited. */
export function updateServerDistributionRule(
  deps: Pick<Deps, 'db' | 'clock'>,
): Handler<'updateServerDistributionRule'> {
  return async (req) => {
    // 1. the key's app
    const app = await requireKeyApp(deps.db, req.auth.apiKey!.appId);
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
