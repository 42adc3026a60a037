import type { Deps } from '../../domain/deps';
import { listApiKeys as listStoredApiKeys } from '../../domain/apiKeys/apiKeys';
import { requireAppAccess } from '../../domain/apps/access';
import { requireOperator } from '../operator';
import type { Handler } from '../types';
import { toApiKeyView } from './apiKeyView';

/** The contract's maxItems for the list: the newest keys are the ones an operator manages. */
const MAX_LISTED = 500;

/** The app's keys, newest first, by prefix only: never the key itself. */
export function listApiKeys(deps: Pick<Deps, 'db' | 'clock'>): Handler<'listApiKeys'> {
  return async (req) => {
    // 1. authorize
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. read
    const keys = await listStoredApiKeys(deps.db, app.id, MAX_LISTED);
    // 3. respond, with each status derived now
    const now = deps.clock.now();
    return { content: { keys: keys.map((k) => toApiKeyView(k, now)) } };
  };
}
