import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { requirePush } from '../../domain/distribution/pushes';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** One push with its recipients counted by status. */
export function getDistributionPush(deps: Pick<Deps, 'db'>): Handler<'getDistributionPush'> {
  return async (req) => {
    // 1. authorize: any member of an active app
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. read and respond
    return { content: await requirePush(deps.db, app.id, req.path.pushId) };
  };
}
