import type { Deps } from '../../deps';
import { revokeAppApiKey } from '../../domain/apiKeys/apiKeys';
import { requireAppAccess } from '../../domain/apps/access';
import { AppError } from '../../domain/errors';
import { requireOperator } from '../operator';
import type { Handler } from '../types';
import { toApiKeyView } from './apiKeyView';

/** Revokes a key of the app at once (the gate then answers API_KEY_NOT_FOUND); revoking again changes nothing. */
export function revokeApiKey(deps: Pick<Deps, 'db' | 'clock'>): Handler<'revokeApiKey'> {
  return async (req) => {
    // 1. authorize
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. revoke, only within this app: another app's key id is as unknown as a made-up one
    const now = deps.clock.now();
    const key = await revokeAppApiKey(deps.db, app.id, req.path.keyId, now);
    if (!key) throw new AppError('API_KEY_ID_NOT_FOUND', { message: 'No API key with this id in the app' });
    // 3. respond
    return { content: toApiKeyView(key, now) };
  };
}
