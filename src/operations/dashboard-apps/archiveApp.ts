import type { Deps } from '../../domain/deps';
import { appNotFound, OWNER_ONLY, requireAppAccess } from '../../domain/apps/access';
import { archiveApp as storeArchive } from '../../domain/apps/store';
import { requireOperator } from '../operator';
import type { Handler } from '../types';
import { appContent } from './appContent';

/**
 * Archives an app (owner only): its keys and SDK access stop working at once (the gate reads the app's status) and
 * it leaves listings; nothing is deleted. Archiving an archived app changes nothing.
 */
export function archiveApp(deps: Pick<Deps, 'db' | 'clock'>): Handler<'archiveApp'> {
  return async (req) => {
    // 1. authenticate and authorize (owner; an archived app is let through so the call is idempotent)
    const { operatorId } = requireOperator(req.auth);
    const { role } = await requireAppAccess(deps.db, operatorId, req.path.appId, {
      roles: OWNER_ONLY,
      allowArchived: true,
    });
    // 2. archive
    const app = await storeArchive(deps.db, req.path.appId, deps.clock.now());
    if (!app) throw appNotFound();
    // 3. respond
    return { content: appContent({ app, role }) };
  };
}
