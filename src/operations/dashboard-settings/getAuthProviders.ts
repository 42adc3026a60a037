import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { authProvidersView, readAuthProviders } from '../../domain/oauth/appProviders';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** The app's end-user sign-in providers; client secrets only as `clientSecretSet`. */
export function getAuthProviders(deps: Pick<Deps, 'db'>): Handler<'getAuthProviders'> {
  return async (req) => {
    // 1. authenticate and authorize (any member of an active app)
    const { operatorId } = requireOperator(req.auth);
    await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. respond
    return { content: authProvidersView(await readAuthProviders(deps.db, req.path.appId)) };
  };
}
