import type { Deps } from '../../domain/deps';
import { requestActor } from '../../domain/audit/auditLog';
import { rowView, updatePolicyRow } from '../../domain/sorobanAuth/policyRows';
import type { Handler } from '../types';
import { requireKeyApp } from '../keyApp';

/** Changes an allowlist row of the secret key's app (new functions are read from the chain again). Audited. */
export function updateAuthPolicyRow(deps: Pick<Deps, 'db' | 'clock' | 'stellar'>): Handler<'updateAuthPolicyRow'> {
  return async (req) => {
    // 1. the key's app
    const app = await requireKeyApp(deps.db, req.auth.apiKey!.appId);
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
