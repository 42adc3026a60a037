import type { Deps } from '../../domain/deps';
import { requestActor } from '../../domain/audit/auditLog';
import { createPolicyRow, rowView } from '../../domain/sorobanAuth/policyRows';
import type { Handler } from '../types';
import { requireKeyApp } from '../keyApp';

/** Adds an allowlist row to the secret key's app once its contract is read from the chain. Audited. */
export function createAuthPolicyRow(deps: Pick<Deps, 'db' | 'clock' | 'stellar'>): Handler<'createAuthPolicyRow'> {
  return async (req) => {
    // 1. the key's app
    const app = await requireKeyApp(deps.db, req.auth.apiKey!.appId);
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
