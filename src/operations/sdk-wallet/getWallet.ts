import type { Deps } from '../../domain/deps';
import { refreshExternalFunding } from '../../domain/wallets/externalFunding';
import { walletView } from '../../domain/funding/userWallets';
import { requireSessionWallet } from '../sdkWallet';
import type { Handler } from '../types';

/**
 * The session user's wallet on the key's network: public key, custody and funded state (404 WALLET_NOT_FOUND without
 * one). A wallet of the user's own that was not on the ledger is looked up there again.
 */
export function getWallet(deps: Pick<Deps, 'db' | 'clock' | 'stellar'>): Handler<'getWallet'> {
  return async (req) => {
    // 1. the session user's own wallet, of the key's app, on the key's network
    const { wallet } = await requireSessionWallet(deps, req.auth);
    // 2. respond (an external wallet's funded state as the ledger has it now, or as stored when the chain is down)
    return { content: walletView(await refreshExternalFunding(deps, wallet, { keepWhenUnreachable: true })) };
  };
}
