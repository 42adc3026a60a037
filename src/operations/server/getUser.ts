import type { Deps } from '../../domain/deps';
import { userContent } from '../../domain/users/userViews';
import { findUserByExternalId, userNotFound } from '../../domain/users/users';
import type { Handler } from '../types';

/** A user of the key's app by the app's own id for them, with every provider used and every wallet. */
export function getUser(deps: Pick<Deps, 'db'>): Handler<'getUser'> {
  return async (req) => {
    // 1. the user, within the key's app only
    const user = await findUserByExternalId(deps.db, req.auth.apiKey!.appId, req.path.externalId);
    if (!user) throw userNotFound('No user of this app has that externalId');
    // 2. respond
    return { content: await userContent(deps.db, user) };
  };
}
