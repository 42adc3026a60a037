// The wallet an SDK API request acts for: the session user's custodial wallet on the network of the publishable key.
// Every SDK wallet and transaction operation starts here, so "the user's own wallet, on the key's network, of the
// key's app" is decided in one place.
import type { Deps } from '../domain/deps';
import { findApp, type App } from '../domain/apps/store';
import { AppError } from '../domain/errors';
import { findOwnedWallet, type WalletRecord } from '../domain/wallets/store';
import type { AuthContext } from './caller';
import { requireUser } from './sdk-auth/sessionUser';

export interface SessionWallet {
  app: App;
  userId: string;
  wallet: WalletRecord;
}

/** The session user's wallet on the key's network; 404 WALLET_NOT_FOUND when the user has none there yet. */
export async function requireSessionWallet(deps: Pick<Deps, 'db'>, auth: AuthContext): Promise<SessionWallet> {
  const user = requireUser(auth);
  const network = auth.apiKey?.network;
  const app = await findApp(deps.db, user.appId);
  if (!network || !app)
    throw new AppError('SDK_AUTH_INVALID_TOKEN', {
      message: "This operation needs an end-user session of the key's app",
    });
  const wallet = await findOwnedWallet(deps.db, { appId: app.id, network, owner: { userId: user.userId } });
  if (!wallet) throw new AppError('WALLET_NOT_FOUND', { message: `The user has no wallet on ${network} yet` });
  return { app, userId: user.userId, wallet };
}
