import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { feePolicyView, loadFeePolicy } from '../../domain/feePolicy/policy';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** The app's fee-bump policy (the defaults until an operator changes it). */
export function getFeePolicy(deps: Pick<Deps, 'db'>): Handler<'getFeePolicy'> {
  return async (req) => {
    // 1. authenticate and authorize (any member of an active app)
    const { operatorId } = requireOperator(req.auth);
    await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. respond
    return { content: feePolicyView(await loadFeePolicy(deps.db, req.path.appId)) };
  };
}
