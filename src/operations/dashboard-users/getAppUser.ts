import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { userContent } from '../../domain/users/userViews';
import { findUser, userNotFound } from '../../domain/users/users';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** One of the app's users with every provider used and every wallet; any member may read it. */
export function getAppUser(deps: Pick<Deps, 'db'>): Handler<'getAppUser'> {
  return async (req) => {
    // 1. authorize (any member of an active app)
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. the user, within that app only
    const user = await findUser(deps.db, app.id, req.path.userId);
    if (!user) throw userNotFound('No user with this id in the app');
    // 3. respond
    return { content: await userContent(deps.db, user) };
  };
}
