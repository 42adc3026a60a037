import type { Deps } from '../../domain/deps';
import { requireKeyApp } from '../keyApp';
import { listPushes } from '../../domain/distribution/pushes';
import type { Handler } from '../types';

/** The contract's default page size. */
const DEFAULT_LIMIT = 20;

/** The app's pushes, newest first, with their progress. (the Dashboard's listDistributionPushes, for the secret key's app) */
export function listServerDistributionPushes(deps: Pick<Deps, 'db'>): Handler<'listServerDistributionPushes'> {
  return async (req) => {
    // 1. the key's app
    const app = await requireKeyApp(deps.db, req.auth.apiKey!.appId);
    // 2. read and respond
    const page = await listPushes(deps.db, app.id, {
      limit: req.query?.limit ?? DEFAULT_LIMIT,
      ...(req.query?.cursor !== undefined ? { cursor: req.query.cursor } : {}),
    });
    return { content: page };
  };
}
