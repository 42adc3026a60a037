import type { Deps } from '../../domain/deps';
import { rotateApiKey as rotateStoredApiKey } from '../../domain/apiKeys/apiKeys';
import { apiKeyStatus } from '../../domain/apiKeys/lifecycle';
import { requireAppAccess } from '../../domain/apps/access';
import { recordAudit } from '../../domain/audit/auditLog';
import { requireOperator } from '../operator';
import type { Handler } from '../types';
import { toApiKeyWithSecretView } from './apiKeyView';

/** Replaces a key by a new one of the same type, network and label; the old one ends after the overlap. */
export function rotateApiKey(deps: Pick<Deps, 'db' | 'clock'>): Handler<'rotateApiKey'> {
  return async (req) => {
    // 1. authorize
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. rotate in one transaction, the old key's row locked (see rotateApiKey in the domain), audited in it
    const now = deps.clock.now();
    const rotated = await deps.db.transaction(async (trx) => {
      const done = await rotateStoredApiKey(trx, {
        appId: app.id,
        keyId: req.path.keyId,
        overlapSeconds: req.body?.overlapSeconds ?? 0,
        now,
      });
      await recordAudit(trx, {
        appId: app.id,
        action: 'api_key.rotated',
        actor: { type: 'operator', id: operatorId },
        ip: req.ip,
        details: { keyId: done.previous.id, newKeyId: done.key.id, previousEndsAt: done.previousEndsAt.toISOString() },
        at: now,
      });
      return done;
    });
    // 3. respond: the new key in clear (only here), and when the old one stops working
    const previousStatus = apiKeyStatus(rotated.previous, now);
    return {
      content: {
        key: toApiKeyWithSecretView(rotated.key, now),
        previousKey: {
          keyId: rotated.previous.id,
          expiresAt: rotated.previousEndsAt.toISOString(),
          status: previousStatus === 'rotating' ? 'rotating' : 'expired',
        },
      },
    };
  };
}
