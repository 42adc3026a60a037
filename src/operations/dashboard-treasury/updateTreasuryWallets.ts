import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { requestActor } from '../../domain/audit/auditLog';
import { setTreasuryLayout, treasuryView } from '../../domain/treasury/treasury';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** Splits the app's global wallet into funding, gas and distribution wallets, or joins them back. */
export function updateTreasuryWallets(
  deps: Pick<Deps, 'db' | 'kms' | 'clock' | 'log' | 'stellar' | 'jobs'>,
): Handler<'updateTreasuryWallets'> {
  return async (req) => {
    // 1. authorize: any member of the app (members change its settings)
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. change the layout on-chain, then the roles (the current layout: nothing changes)
    await setTreasuryLayout(deps, { app, layout: req.body.layout, actor: requestActor(req.auth), ip: req.ip });
    // 3. respond with the treasury as it is now
    return { content: await treasuryView(deps, app) };
  };
}
