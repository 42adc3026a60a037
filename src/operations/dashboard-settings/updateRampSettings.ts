import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { requestActor } from '../../domain/audit/auditLog';
import { updateRampSettings as saveRampSettings } from '../../domain/ramps/settings';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** Replaces the app's ramp providers; new credentials sealed with the key management. Audited without them. */
export function updateRampSettings(
  deps: Pick<Deps, 'db' | 'kms' | 'clock' | 'ramps' | 'secrets'>,
): Handler<'updateRampSettings'> {
  return async (req) => {
    // 1. authenticate and authorize (any member of an active app, as the app's other settings)
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. check, seal, store, audit (domain)
    const providers = await saveRampSettings(deps, app, req.body, {
      actor: requestActor(req.auth),
      at: deps.clock.now(),
      ip: req.ip,
    });
    // 3. respond
    return { content: { providers: providers as RampSettingsContent } };
  };
}

type RampSettingsContent = Awaited<ReturnType<Handler<'updateRampSettings'>>>['content']['providers'];
