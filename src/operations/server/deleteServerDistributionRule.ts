import type { Deps } from '../../domain/deps';
import { requestActor } from '../../domain/audit/auditLog';
import { deleteRule } from '../../domain/distribution/rules';
import { requireKeyApp } from '../keyApp';
import type { Handler } from '../types';

/** Deletes a distribution rule of the secret key's app (its claims stay in the history). Audited. */
export function deleteServerDistributionRule(
  deps: Pick<Deps, 'db' | 'clock'>,
): Handler<'deleteServerDistributionRule'> {
  return async (req) => {
    // 1. the key's app
    const app = await requireKeyApp(deps.db, req.auth.apiKey!.appId);
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
