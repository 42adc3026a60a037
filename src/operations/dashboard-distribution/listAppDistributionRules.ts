import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { listRules, ruleView } from '../../domain/distribution/rules';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** The app's distribution rules, enabled or not, oldest first, with their claim counts, for any member. */
export function listAppDistributionRules(deps: Pick<Deps, 'db'>): Handler<'listAppDistributionRules'> {
  return async (req) => {
    // 1. authorize: any member of an active app
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. read and respond
    const rules = await listRules(deps.db, app.id);
    return { content: { rules: rules.map(ruleView) } };
  };
}
