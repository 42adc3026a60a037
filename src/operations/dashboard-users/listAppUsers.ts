import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { listAppUsers as listUserPage } from '../../domain/users/listUsers';
import { appUserSummaries } from '../../domain/users/userViews';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** The contract's defaults for limit and offset. */
const DEFAULT_LIMIT = 20;

/** The app's users newest first, searched and paged (offset, or a cursor for deep pages); any member may read them. */
export function listAppUsers(deps: Pick<Deps, 'db'>): Handler<'listAppUsers'> {
  return async (req) => {
    // 1. authorize (any member of an active app)
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. read the page
    const limit = req.query?.limit ?? DEFAULT_LIMIT;
    const offset = req.query?.offset ?? 0;
    const page = await listUserPage(deps.db, app.id, {
      limit,
      offset,
      ...(req.query?.search !== undefined ? { search: req.query.search } : {}),
      ...(req.query?.cursor !== undefined ? { cursor: req.query.cursor } : {}),
    });
    // 3. respond, each user with their wallet on the app's network
    return {
      content: {
        users: await appUserSummaries(deps.db, page.users, app.network),
        total: page.total,
        limit,
        offset,
        nextCursor: page.nextCursor,
      },
    };
  };
}
