import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { requestActor } from '../../domain/audit/auditLog';
import { createPolicyRow, rowView } from '../../domain/sorobanAuth/policyRows';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** Adds an allowlist row (any member, as the app's other settings) once its contract is read from the chain. Audited. */
export function createAppAuthPolicyRow(
  deps: Pick<Deps, 'db' | 'clock' | 'stellar'>,
): Handler<'createAppAuthPolicyRow'> {
  return async (req) => {
    // 1. authenticate and authorize
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. check the shape and the chain, store, audit (domain)
    const row = await createPolicyRow(deps, app, req.body, {
      actor: requestActor(req.auth),
      at: deps.clock.now(),
      ip: req.ip,
    });
    // 3. respond
    return { content: rowView(row) };
  };
}
