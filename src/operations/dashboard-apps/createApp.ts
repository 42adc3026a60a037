import type { Deps } from '../../deps';
import { createApp as storeApp } from '../../domain/apps/store';
import { withTx } from '../../infra/db/database';
import { requireOperator } from '../operator';
import type { Handler } from '../types';
import { appContent } from './appContent';

/** Creates an app on one network with the default settings; the caller becomes its owner. */
export function createApp(deps: Pick<Deps, 'db' | 'clock'>): Handler<'createApp'> {
  return async (req) => {
    // 1. authenticate (any signed-in operator may create apps)
    const { operatorId } = requireOperator(req.auth);
    // 2. create the app and the owner's membership together
    // The app wallet (one `global` wallet) is created by the custody issue (#6).
    const app = await withTx(deps.db, (trx) =>
      storeApp(trx, { name: req.body.name, network: req.body.network, ownerOperatorId: operatorId, at: deps.clock.now() }),
    );
    // 3. respond
    return { content: appContent({ app, role: 'owner' }) };
  };
}
