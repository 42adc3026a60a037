import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { getAppDomains as storeDomains } from '../../domain/apps/domains';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** The app's allowed origins and OAuth redirect URIs, in the operator's order. */
export function getAppDomains(deps: Pick<Deps, 'db'>): Handler<'getAppDomains'> {
  return async (req) => {
    // 1. authenticate and authorize (any member of an active app)
    const { operatorId } = requireOperator(req.auth);
    await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. respond
    return { content: await storeDomains(deps.db, req.path.appId) };
  };
}
