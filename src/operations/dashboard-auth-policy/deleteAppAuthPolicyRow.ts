import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { requestActor } from '../../domain/audit/auditLog';
import { deletePolicyRow } from '../../domain/sorobanAuth/policyRows';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** Removes an allowlist row at once. Audited. */
export function deleteAppAuthPolicyRow(deps: Pick<Deps, 'db' | 'clock'>): Handler<'deleteAppAuthPolicyRow'> {
  return async (req) => {
    // 1. authenticate and authorize
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. delete and audit (domain); a row of another app is not found
    await deletePolicyRow(deps, app, req.path.rowId, {
      actor: requestActor(req.auth),
      at: deps.clock.now(),
      ip: req.ip,
    });
    // 3. respond
    return { content: { rowId: req.path.rowId, deleted: true } };
  };
}
