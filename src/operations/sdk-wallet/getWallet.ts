import type { Deps } from '../../domain/deps';
import { walletView } from '../../domain/funding/userWallets';
import { requireSessionWallet } from '../sdkWallet';
import type { Handler } from '../types';

/** The session user's wallet on the key's network: public key and funded state (404 WALLET_NOT_FOUND without one). */
export function getWallet(deps: Pick<Deps, 'db'>): Handler<'getWallet'> {
  return async (req) => {
    // 1. the session user's own wallet, of the key's app, on the key's network
    const { wallet } = await requireSessionWallet(deps, req.auth);
    // 2. respond
    return { content: walletView(wallet) };
  };
}
