import { requestActor } from '../../domain/audit/auditLog';
import type { Deps } from '../../domain/deps';
import type { RampCaller } from '../../domain/ramps/call';
import type { OperationId } from '../../../generated/server/catalogue.gen';
import { requireSessionWallet } from '../sdkWallet';
import type { OperationRequest } from '../types';

/** The session user, their wallet on the key's network and their app: who every ramp operation acts for. */
export async function rampCallerOf<Op extends OperationId>(
  deps: Pick<Deps, 'db'>,
  req: OperationRequest<Op>,
): Promise<RampCaller> {
  const { app, userId, wallet } = await requireSessionWallet(deps, req.auth);
  return { app, userId, wallet, actor: requestActor(req.auth), ...(req.ip !== undefined ? { ip: req.ip } : {}) };
}
