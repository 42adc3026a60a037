import type { Deps } from '../../deps';
import { changeTeamAsOwner, removeMember as storeRemove } from '../../domain/apps/members';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** Removes a member or cancels an invitation (owner only); their access ends with the commit. */
export function removeMember(deps: Pick<Deps, 'db'>): Handler<'removeMember'> {
  return async (req) => {
    // 1. authenticate
    const { operatorId } = requireOperator(req.auth);
    // 2. authorize as owner and remove, in one transaction on the locked team
    await changeTeamAsOwner(deps.db, operatorId, req.path.appId, (trx) => storeRemove(trx, req.path.appId, req.path.memberId));
    // 3. respond
    return { content: { memberId: req.path.memberId, removed: true } };
  };
}
