import type { Deps } from '../../domain/deps';
import { requireKeyApp } from '../keyApp';
import { requestActor } from '../../domain/audit/auditLog';
import { createPush } from '../../domain/distribution/pushes';
import type { Handler } from '../types';

/** Records a push of an asset to up to 10,000 of the app's users, paid in the background by the push runner. Audited. (the Dashboard's createDistributionPush, for the secret key's app) */
export function createServerDistributionPush(
  deps: Pick<Deps, 'db' | 'clock'>,
): Handler<'createServerDistributionPush'> {
  return async (req) => {
    // 1. the key's app
    const app = await requireKeyApp(deps.db, req.auth.apiKey!.appId);
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
