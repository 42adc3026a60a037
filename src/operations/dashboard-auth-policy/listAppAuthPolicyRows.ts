import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { listPolicyRows, rowView } from '../../domain/sorobanAuth/policyRows';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** The app's Soroban auth allowlist, oldest row first, for any member. */
export function listAppAuthPolicyRows(deps: Pick<Deps, 'db'>): Handler<'listAppAuthPolicyRows'> {
  return async (req) => {
    // 1. authorize: any member of an active app
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. read and respond
    const rows = await listPolicyRows(deps.db, app.id);
    return { content: { rows: rows.map(rowView), network: app.network } };
  };
}
