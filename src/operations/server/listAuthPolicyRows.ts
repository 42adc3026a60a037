import type { Deps } from '../../domain/deps';
import { listPolicyRows, rowView } from '../../domain/sorobanAuth/policyRows';
import type { Handler } from '../types';
import { requireKeyApp } from '../keyApp';

/** The secret key's app's Soroban auth allowlist, oldest row first, with the app's network. */
export function listAuthPolicyRows(deps: Pick<Deps, 'db'>): Handler<'listAuthPolicyRows'> {
  return async (req) => {
    // 1. the key's app (the gate verified the secret key)
    const app = await requireKeyApp(deps.db, req.auth.apiKey!.appId);
    // 2. read and respond
    const rows = await listPolicyRows(deps.db, app.id);
    return { content: { rows: rows.map(rowView), network: app.network } };
  };
}
