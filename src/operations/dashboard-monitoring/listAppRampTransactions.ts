import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { listAppRamps } from '../../domain/ramps/transactions';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** The contract's default page size. */
const DEFAULT_LIMIT = 20;

/** The app's ramp transactions, newest first, optionally in one status. */
export function listAppRampTransactions(deps: Pick<Deps, 'db'>): Handler<'listAppRampTransactions'> {
  return async (req) => {
    // 1. authorize: any member of an active app
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. read and respond
    const page = await listAppRamps(deps, app.id, {
      limit: req.query?.limit ?? DEFAULT_LIMIT,
      ...(req.query?.status !== undefined ? { status: req.query.status } : {}),
      ...(req.query?.cursor !== undefined ? { cursor: req.query.cursor } : {}),
    });
    return { content: page };
  };
}
