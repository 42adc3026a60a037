import type { Deps } from '../../domain/deps';
import { walletBalances } from '../../domain/wallets/balances';
import { requireSessionWallet } from '../sdkWallet';
import type { Handler } from '../types';

/** The session user's wallet balances, read from Stellar RPC now (an unfunded wallet: `funded: false`, no lines). */
export function getWalletBalances(deps: Pick<Deps, 'db' | 'stellar'>): Handler<'getWalletBalances'> {
  return async (req) => {
    // 1. the session user's own wallet, of the key's app, on the key's network
    const { app, wallet } = await requireSessionWallet(deps, req.auth);
    // 2. read the chain (503 STELLAR_UNAVAILABLE when it cannot be reached)
    const content = await walletBalances(deps, { app, wallet });
    // 3. respond
    return { content };
  };
}
