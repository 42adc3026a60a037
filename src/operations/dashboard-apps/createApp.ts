import { runInBackground } from '../../domain/background';
import type { Deps } from '../../domain/deps';
import { fundAppWalletFromFriendbot, type TreasuryDeps } from '../../domain/treasury/treasury';
import { createAppWithWallet } from '../../domain/wallets/appWallets';
import { requireOperator } from '../operator';
import type { Handler } from '../types';
import { appContent } from './appContent';

/** Creates an app on one network with the default settings and its global wallet; the caller becomes its owner. */
export function createApp(
  deps: Pick<Deps, 'db' | 'kms' | 'clock' | 'background'> & TreasuryDeps,
): Handler<'createApp'> {
  return async (req) => {
    // 1. authenticate (any signed-in operator may create apps)
    const { operatorId } = requireOperator(req.auth);
    // 2. create the app, the owner's membership and the app's global wallet together
    const { app } = await createAppWithWallet(deps, {
      name: req.body.name,
      network: req.body.network,
      ownerOperatorId: operatorId,
    });
    // 3. on testnet, fund the wallet from friendbot in the background (best effort: creation never waits or fails on it)
    void runInBackground(
      deps,
      () => fundAppWalletFromFriendbot(deps, app),
      (err) => req.log.warn({ err, appId: app.id }, 'friendbot funding of the app wallet failed'),
    );
    // 4. respond
    return { content: appContent({ app, role: 'owner' }) };
  };
}
