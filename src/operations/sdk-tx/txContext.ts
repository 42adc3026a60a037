// The transaction context of an SDK request: the session user's wallet (sdkWallet.ts) plus who key uses are audited for.
import type { Deps } from '../../domain/deps';
import { requestActor } from '../../domain/audit/auditLog';
import type { TxContext } from '../../domain/transactions/submission';
import type { OperationRequest } from '../types';
import type { OperationId } from '../../../generated/server/catalogue.gen';
import { requireSessionWallet } from '../sdkWallet';

export async function txContextOf<Op extends OperationId>(
  deps: Pick<Deps, 'db'>,
  req: OperationRequest<Op>,
): Promise<TxContext> {
  const { app, userId, wallet } = await requireSessionWallet(deps, req.auth);
  return { app, userId, wallet, actor: requestActor(req.auth), ip: req.ip };
}
