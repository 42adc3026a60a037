import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { requestActor } from '../../domain/audit/auditLog';
import { rowView, updatePolicyRow } from '../../domain/sorobanAuth/policyRows';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** Changes an allowlist row (new functions are read from the chain again). Audited. */
export function updateAppAuthPolicyRow(
  deps: Pick<Deps, 'db' | 'clock' | 'stellar'>,
): Handler<'updateAppAuthPolicyRow'> {
  return async (req) => {
    // 1. authenticate and authorize
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. check, change, audit (domain); a row of another app is not found
    const row = await updatePolicyRow(deps, app, req.path.rowId, req.body, {
      actor: requestActor(req.auth),
      at: deps.clock.now(),
      ip: req.ip,
    });
    // 3. respond
    return { content: rowView(row) };
  };
}
