import type { Deps } from '../../domain/deps';
import { createApiKey as mintApiKey } from '../../domain/apiKeys/apiKeys';
import { requireAppAccess } from '../../domain/apps/access';
import { recordAudit } from '../../domain/audit/auditLog';
import { AppError } from '../../domain/errors';
import { requireOperator } from '../operator';
import type { Handler } from '../types';
import { toApiKeyWithSecretView } from './apiKeyView';

/** Generates a key of the app's network; the answer is the only time the key exists in clear. */
export function createApiKey(deps: Pick<Deps, 'db' | 'clock'>): Handler<'createApiKey'> {
  return async (req) => {
    // 1. authorize: any member of the (active) app may manage its keys
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. validate what the schema cannot: an expiry in the future
    const now = deps.clock.now();
    const expiresAt = req.body.expiresAt === undefined ? undefined : new Date(req.body.expiresAt);
    if (expiresAt && expiresAt.getTime() <= now.getTime()) {
      throw new AppError('VALIDATION_ERROR', {
        message: 'Request validation failed',
        details: { fieldErrors: { expiresAt: ['must be in the future'] } },
      });
    }
    // 3. mint and store (hash and display prefix only; the network is the app's, never chosen), audited in the same transaction
    const key = await deps.db.transaction(async (trx) => {
      const minted = await mintApiKey(trx, {
        appId: app.id,
        type: req.body.type,
        network: app.network,
        ...(req.body.label !== undefined ? { label: req.body.label } : {}),
        ...(expiresAt ? { expiresAt } : {}),
        createdAt: now,
      });
      await recordAudit(trx, {
        appId: app.id,
        action: 'api_key.created',
        actor: { type: 'operator', id: operatorId },
        ip: req.ip,
        details: { keyId: minted.id, type: minted.type },
        at: now,
      });
      return minted;
    });
    // 4. respond, once, with the key in clear
    return { content: toApiKeyWithSecretView(key, now) };
  };
}
