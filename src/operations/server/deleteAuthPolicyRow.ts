import type { Deps } from '../../domain/deps';
import { requestActor } from '../../domain/audit/auditLog';
import { deletePolicyRow } from '../../domain/sorobanAuth/policyRows';
import type { Handler } from '../types';
import { requireKeyApp } from '../keyApp';

/** Removes an allowlist row of the secret key's app at once. Audited. */
export function deleteAuthPolicyRow(deps: Pick<Deps, 'db' | 'clock'>): Handler<'deleteAuthPolicyRow'> {
  return async (req) => {
    // 1. the key's app
    const app = await requireKeyApp(deps.db, req.auth.apiKey!.appId);
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
