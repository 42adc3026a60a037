import type { Deps } from '../../domain/deps';
import { appNotFound, OWNER_ONLY, requireAppAccess } from '../../domain/apps/access';
import { restoreApp as storeRestore } from '../../domain/apps/store';
import { requireOperator } from '../operator';
import type { Handler } from '../types';
import { appContent } from './appContent';

/** Restores an archived app (owner only): its unrevoked, unexpired keys work again. Restoring an active app changes nothing. */
export function restoreApp(deps: Pick<Deps, 'db'>): Handler<'restoreApp'> {
  return async (req) => {
    // 1. authenticate and authorize (owner, archived apps included)
    const { operatorId } = requireOperator(req.auth);
    const { role } = await requireAppAccess(deps.db, operatorId, req.path.appId, {
      roles: OWNER_ONLY,
      allowArchived: true,
    });
    // 2. restore
    const app = await storeRestore(deps.db, req.path.appId);
    if (!app) throw appNotFound();
    // 3. respond
    return { content: appContent({ app, role }) };
  };
}
