import type { Deps } from '../../domain/deps';
import { userContent } from '../../domain/users/userViews';
import { setExternalId } from '../../domain/users/users';
import type { Handler } from '../types';

/** Sets or clears the app's own id for one of its users (unique within the app: EXTERNAL_ID_TAKEN otherwise). */
export function setUserExternalId(deps: Pick<Deps, 'db'>): Handler<'setUserExternalId'> {
  return async (req) => {
    // 1. change it (USER_NOT_FOUND for a user not of the key's app, EXTERNAL_ID_TAKEN when another user has it)
    const user = await setExternalId(deps.db, req.auth.apiKey!.appId, req.path.userId, req.body.externalId);
    // 2. respond
    return { content: await userContent(deps.db, user) };
  };
}
