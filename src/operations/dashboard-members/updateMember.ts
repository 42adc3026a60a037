import type { Deps } from '../../domain/deps';
import { changeMemberRole, changeTeamAsOwner } from '../../domain/apps/members';
import { requireOperator } from '../operator';
import type { Handler } from '../types';
import { memberContent } from './memberContent';

/** Sets a member's role (owner only); `owner` transfers ownership, the caller becoming an admin in the same step. */
export function updateMember(deps: Pick<Deps, 'db'>): Handler<'updateMember'> {
  return async (req) => {
    // 1. authenticate
    const { operatorId } = requireOperator(req.auth);
    // 2. authorize as owner and change the role, in one transaction on the locked team
    const member = await changeTeamAsOwner(deps.db, operatorId, req.path.appId, (trx) =>
      changeMemberRole(trx, {
        appId: req.path.appId,
        ownerOperatorId: operatorId,
        memberId: req.path.memberId,
        role: req.body.role,
      }),
    );
    // 3. respond
    return { content: memberContent(member) };
  };
}
