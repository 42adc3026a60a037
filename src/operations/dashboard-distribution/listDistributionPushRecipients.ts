import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { listPushRecipients } from '../../domain/distribution/pushes';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** The contract's default page size. */
const DEFAULT_LIMIT = 20;

/** A push's recipients in the order named, with their status, a page at a time. */
export function listDistributionPushRecipients(deps: Pick<Deps, 'db'>): Handler<'listDistributionPushRecipients'> {
  return async (req) => {
    // 1. authorize: any member of an active app
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. read and respond
    const page = await listPushRecipients(deps.db, app.id, req.path.pushId, {
      limit: req.query?.limit ?? DEFAULT_LIMIT,
      ...(req.query?.cursor !== undefined ? { cursor: req.query.cursor } : {}),
      ...(req.query?.status !== undefined ? { status: req.query.status } : {}),
    });
    return { content: page };
  };
}
