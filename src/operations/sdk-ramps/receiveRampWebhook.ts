import { findApp } from '../../domain/apps/store';
import { AppError } from '../../domain/errors';
import { receiveProviderWebhook, type RampsDeps } from '../../domain/ramps/transactions';
import type { Handler } from '../types';

/** A ramp provider's event for an app: verified over its exact bytes, then applied to the ramp it names. */
export function receiveRampWebhook(deps: RampsDeps): Handler<'receiveRampWebhook'> {
  return async (req) => {
    // 1. the app, active (no key: the provider's signature is the authentication)
    const app = await findApp(deps.db, req.path.appId);
    if (!app || app.status !== 'active') throw new AppError('APPLICATION_NOT_FOUND', { message: 'No such app' });
    // 2. verify, read and apply (domain)
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(req.headers))
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
    const rampTxId = await receiveProviderWebhook(deps, app, req.path.providerId, {
      headers,
      rawBody: req.rawBody ?? Buffer.from(JSON.stringify(req.body)),
    });
    // 3. respond
    return { content: { rampTxId } };
  };
}
