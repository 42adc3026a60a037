import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { treasuryView } from '../../domain/treasury/treasury';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** The app's wallets with live balances (Stellar RPC), the reserve per wallet and the reserve locked now. */
export function getTreasury(
  deps: Pick<Deps, 'db' | 'kms' | 'clock' | 'log' | 'stellar' | 'jobs'>,
): Handler<'getTreasury'> {
  return async (req) => {
    // 1. authorize: any member of the app
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. read the wallets and their balances (503 when the RPC cannot be reached)
    const content = await treasuryView(deps, app);
    // 3. respond
    return { content };
  };
}
