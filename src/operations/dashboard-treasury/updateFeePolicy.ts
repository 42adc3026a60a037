import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { requestActor } from '../../domain/audit/auditLog';
import { AppError } from '../../domain/errors';
import { feePolicyFieldErrors, feePolicyFromView, feePolicyView, saveFeePolicy } from '../../domain/feePolicy/policy';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** Replaces the app's whole fee-bump policy; it applies to every fee-bump signed after the change. Audited. */
export function updateFeePolicy(deps: Pick<Deps, 'db' | 'clock'>): Handler<'updateFeePolicy'> {
  return async (req) => {
    // 1. authenticate and authorize (any member of an active app, as for the app's other settings)
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. validate what the contract's forms cannot: the fee range, approved assets the app configures, checksums
    const fieldErrors = feePolicyFieldErrors(req.body, app.assets);
    if (Object.keys(fieldErrors).length)
      throw new AppError('VALIDATION_ERROR', { message: 'Request validation failed', details: { fieldErrors } });
    // 3. store it with its audit entry (one transaction)
    const stored = await saveFeePolicy(deps.db, {
      appId: app.id,
      policy: feePolicyFromView(req.body),
      actor: requestActor(req.auth),
      at: deps.clock.now(),
      ip: req.ip,
    });
    // 4. respond
    return { content: feePolicyView(stored) };
  };
}
