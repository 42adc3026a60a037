import type { Deps } from '../../domain/deps';
import { listOperatorApps } from '../../domain/apps/store';
import { requireOperator } from '../operator';
import type { Handler } from '../types';
import { appContent } from './appContent';

/** The caller's apps (only those they are a member of), newest first; archived ones only when asked for. */
export function listApps(deps: Pick<Deps, 'db'>): Handler<'listApps'> {
  return async (req) => {
    // 1. authenticate
    const { operatorId } = requireOperator(req.auth);
    // 2. the operator's memberships are the authorization: no other app can appear
    const apps = await listOperatorApps(deps.db, operatorId, { includeArchived: req.query?.includeArchived === true });
    // 3. respond
    return { content: { apps: apps.map(appContent) } };
  };
}
