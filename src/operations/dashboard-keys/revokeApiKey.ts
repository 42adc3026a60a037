import type { Deps } from '../../domain/deps';
import { revokeAppApiKey } from '../../domain/apiKeys/apiKeys';
import { requireAppAccess } from '../../domain/apps/access';
import { recordAudit } from '../../domain/audit/auditLog';
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
    // 2. revoke, only within this app: another app's key id is as unknown as a made-up one; audited in the same transaction
    const now = deps.clock.now();
    const key = await deps.db.transaction(async (trx) => {
      const revoked = await revokeAppApiKey(trx, app.id, req.path.keyId, now);
      // A repeat keeps the first revocation time: only the call that revoked the key finds its own time there.
      if (revoked?.revokedAt?.getTime() === now.getTime()) {
        await recordAudit(trx, {
          appId: app.id,
          action: 'api_key.revoked',
          actor: { type: 'operator', id: operatorId },
          ip: req.ip,
          details: { keyId: revoked.id },
          at: now,
        });
      }
      return revoked;
    });
    if (!key) throw new AppError('API_KEY_ID_NOT_FOUND', { message: 'No API key with this id in the app' });
    // 3. respond
    return { content: toApiKeyView(key, now) };
  };
}
