import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { requestActor } from '../../domain/audit/auditLog';
import { rotateWebhookSecret as rotate } from '../../domain/webhooks/endpoints';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** The contract's default overlap: one day. */
const DEFAULT_OVERLAP_SECONDS = 86_400;

/** A new signing secret, shown once; the old one keeps signing for the overlap. Audited. */
export function rotateWebhookSecret(deps: Pick<Deps, 'db' | 'clock' | 'secrets'>): Handler<'rotateWebhookSecret'> {
  return async (req) => {
    // 1. authenticate and authorize
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. rotate (409 WEBHOOK_NOT_CONFIGURED without a URL)
    const rotated = await rotate(deps, {
      appId: app.id,
      overlapSeconds: req.body?.overlapSeconds ?? DEFAULT_OVERLAP_SECONDS,
      actor: requestActor(req.auth),
      at: deps.clock.now(),
      ip: req.ip,
    });
    // 3. respond
    return {
      content: {
        secret: rotated.secret,
        previousSecretExpiresAt: rotated.previousSecretExpiresAt?.toISOString() ?? null,
      },
    };
  };
}
