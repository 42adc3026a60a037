import type { Deps } from '../../domain/deps';
import { requireKeyApp } from '../keyApp';
import { listPushRecipients } from '../../domain/distribution/pushes';
import type { Handler } from '../types';

/** The contract's default page size. */
const DEFAULT_LIMIT = 20;

/** A push's recipients in the order named, with their status, a page at a time. (the Dashboard's listDistributionPushRecipients, for the secret key's app) */
export function listServerDistributionPushRecipients(
  deps: Pick<Deps, 'db'>,
): Handler<'listServerDistributionPushRecipients'> {
  return async (req) => {
    // 1. the key's app
    const app = await requireKeyApp(deps.db, req.auth.apiKey!.appId);
    // 2. read and respond
    const page = await listPushRecipients(deps.db, app.id, req.path.pushId, {
      limit: req.query?.limit ?? DEFAULT_LIMIT,
      ...(req.query?.cursor !== undefined ? { cursor: req.query.cursor } : {}),
      ...(req.query?.status !== undefined ? { status: req.query.status } : {}),
    });
    return { content: page };
  };
}
