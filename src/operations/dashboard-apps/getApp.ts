import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { requireOperator } from '../operator';
import type { Handler } from '../types';
import { appContent } from './appContent';

/** An app's settings and the caller's role; archived apps stay readable by their members (to restore them). */
export function getApp(deps: Pick<Deps, 'db'>): Handler<'getApp'> {
  return async (req) => {
    // 1. authenticate and authorize (any member; 404 for everyone else)
    const { operatorId } = requireOperator(req.auth);
    const access = await requireAppAccess(deps.db, operatorId, req.path.appId, { allowArchived: true });
    // 2. respond
    return { content: appContent(access) };
  };
}
