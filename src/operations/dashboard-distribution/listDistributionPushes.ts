import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { listPushes } from '../../domain/distribution/pushes';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** The contract's default page size. */
const DEFAULT_LIMIT = 20;

/** The app's pushes, newest first, with their progress. */
export function listDistributionPushes(deps: Pick<Deps, 'db'>): Handler<'listDistributionPushes'> {
  return async (req) => {
    // 1. authorize: any member of an active app
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. read and respond
    const page = await listPushes(deps.db, app.id, {
      limit: req.query?.limit ?? DEFAULT_LIMIT,
      ...(req.query?.cursor !== undefined ? { cursor: req.query.cursor } : {}),
    });
    return { content: page };
  };
}
