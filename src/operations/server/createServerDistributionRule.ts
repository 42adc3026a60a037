import type { Deps } from '../../domain/deps';
import { requestActor } from '../../domain/audit/auditLog';
import { createRule, ruleView } from '../../domain/distribution/rules';
import { requireKeyApp } from '../keyApp';
import type { Handler } from '../types';

/** Adds a token distribution rule to the secret key's app (the Dashboard's createDistributionRule). Audited. */
export function createServerDistributionRule(
  deps: Pick<Deps, 'db' | 'clock'>,
): Handler<'createServerDistributionRule'> {
  return async (req) => {
    // 1. the key's app
    const app = await requireKeyApp(deps.db, req.auth.apiKey!.appId);
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
