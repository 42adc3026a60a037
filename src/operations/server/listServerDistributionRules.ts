import type { Deps } from '../../domain/deps';
import { listRules, ruleView } from '../../domain/distribution/rules';
import { requireKeyApp } from '../keyApp';
import type { Handler } from '../types';

/** The secret key's app's distribution rules, enabled or not, oldest first, with their claim counts. */
export function listServerDistributionRules(deps: Pick<Deps, 'db'>): Handler<'listServerDistributionRules'> {
  return async (req) => {
    // 1. the key's app
    const app = await requireKeyApp(deps.db, req.auth.apiKey!.appId);
    // 2. read and respond
    const rules = await listRules(deps.db, app.id);
    return { content: { rules: rules.map(ruleView) } };
  };
}
