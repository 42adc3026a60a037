import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { authProvidersView, updateAuthProviders as storeAuthProviders } from '../../domain/oauth/appProviders';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/**
 * Sets the app's end-user sign-in providers. Client secrets are sealed before they are stored and never answered;
 * enabling Google or GitHub needs a client id and a secret (422 OAUTH_PROVIDER_NOT_CONFIGURED, nothing changed).
 */
export function updateAuthProviders(deps: Pick<Deps, 'db' | 'clock' | 'secrets'>): Handler<'updateAuthProviders'> {
  return async (req) => {
    // 1. authenticate and authorize (any member of an active app, as for the app's other settings)
    const { operatorId } = requireOperator(req.auth);
    await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. replace the settings in one transaction (the router validated the body against AuthProvidersInput)
    const stored = await storeAuthProviders(deps.db, deps.secrets, req.path.appId, req.body, deps.clock.now());
    // 3. respond
    return { content: authProvidersView(stored) };
  };
}
