import type { Deps } from '../../domain/deps';
import { requireKeyApp } from '../keyApp';
import { requirePush } from '../../domain/distribution/pushes';
import type { Handler } from '../types';

/** One push with its recipients counted by status. (the Dashboard's getDistributionPush, for the secret key's app) */
export function getServerDistributionPush(deps: Pick<Deps, 'db'>): Handler<'getServerDistributionPush'> {
  return async (req) => {
    // 1. the key's app
    const app = await requireKeyApp(deps.db, req.auth.apiKey!.appId);
    // 2. read and respond
    return { content: await requirePush(deps.db, app.id, req.path.pushId) };
  };
}
