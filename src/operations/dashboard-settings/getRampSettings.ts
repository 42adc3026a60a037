import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { rampSettingsOf } from '../../domain/ramps/settings';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** The app's ramp providers and their assets; credentials only as `credentialsSet`. */
export function getRampSettings(deps: Pick<Deps, 'db' | 'ramps' | 'secrets'>): Handler<'getRampSettings'> {
  return async (req) => {
    // 1. authenticate and authorize (any member of an active app)
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. respond
    return { content: { providers: (await rampSettingsOf(deps, app)) as RampSettingsContent } };
  };
}

type RampSettingsContent = Awaited<ReturnType<Handler<'getRampSettings'>>>['content']['providers'];
