import { requireAppAccess } from '../../domain/apps/access';
import { requestActor } from '../../domain/audit/auditLog';
import { AppError } from '../../domain/errors';
import { findUser } from '../../domain/users/users';
import { fundUserWallet, type FundingDeps } from '../../domain/funding/funding';
import { findOwnedWallet } from '../../domain/wallets/store';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** The Dashboard's Fund action: the same sponsored activation as POST /v1/wallets/fund, in any funding mode. */
export function fundAppUserWallet(deps: FundingDeps): Handler<'fundAppUserWallet'> {
  return async (req) => {
    // 1. authorize: any member of the app (members change its settings)
    const { operatorId } = requireOperator(req.auth);
    const { app } = await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. the user, and their wallet on the app's network
    const user = await findUser(deps.db, app.id, req.path.userId);
    if (!user) throw new AppError('USER_NOT_FOUND', { message: 'No user with this id in the app' });
    const wallet = await findOwnedWallet(deps.db, { appId: app.id, network: app.network, owner: { userId: user.id } });
    if (!wallet) throw new AppError('WALLET_NOT_FOUND', { message: `The user has no wallet on ${app.network}` });
    // 3. fund (409 when already funded, 402 when the funding wallet is short, 503 on chain trouble); audit-logged
    const content = await fundUserWallet(deps, {
      app,
      wallet,
      trigger: 'dashboard',
      actor: requestActor(req.auth),
      ip: req.ip,
    });
    // 4. respond
    return { content };
  };
}
