import type { Deps } from '../../domain/deps';
import { AppError } from '../../domain/errors';
import { DEFAULT_HISTORY_LIMIT, listWalletHistory } from '../../domain/transactions/history';
import { findOwnedWallet, type WalletRecord } from '../../domain/wallets/store';
import type { AuthContext } from '../caller';
import { requireUser } from '../sdk-auth/sessionUser';
import { requireSessionWallet } from '../sdkWallet';
import type { Handler } from '../types';

/** The wallet whose history is asked for: the session's (the key's network), or the user's on `?network=`. */
async function historyWallet(
  deps: Pick<Deps, 'db'>,
  auth: AuthContext,
  network: 'testnet' | 'mainnet' | undefined,
): Promise<WalletRecord> {
  if (network === undefined || network === auth.apiKey?.network) return (await requireSessionWallet(deps, auth)).wallet;
  const user = requireUser(auth);
  const wallet = await findOwnedWallet(deps.db, { appId: user.appId, network, owner: { userId: user.userId } });
  if (!wallet) throw new AppError('WALLET_NOT_FOUND', { message: `The user has no wallet on ${network}` });
  return wallet;
}

/** The session user's history, newest first: offset paging as the spec defines it, or the cursor for deep pages. */
export function getTxHistory(deps: Pick<Deps, 'db'>): Handler<'getTxHistory'> {
  return async (req) => {
    // 1. authorize: the session user's own wallet, on the key's network unless another is asked for
    const wallet = await historyWallet(deps, req.auth, req.query?.network);
    // 2-3. read one page and the total (a cursor of another wallet's history is refused there: 400 query.cursor)
    const limit = req.query?.limit ?? DEFAULT_HISTORY_LIMIT;
    const page = await listWalletHistory(deps.db, {
      walletId: wallet.id,
      limit,
      offset: req.query?.offset ?? 0,
      ...(req.query?.cursor !== undefined ? { cursor: req.query.cursor } : {}),
    });
    // 4. respond
    return {
      content: { records: page.records, total: page.total, limit, offset: page.offset, nextCursor: page.nextCursor },
    };
  };
}
