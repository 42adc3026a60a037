import type { Deps } from '../../domain/deps';
import { changeTeamAsOwner, findMember, removeMember as storeRemove } from '../../domain/apps/members';
import { recordAudit } from '../../domain/audit/auditLog';
import { requireOperator } from '../operator';
import type { Handler } from '../types';

/** Removes a member or cancels an invitation (owner only); their access ends with the commit. */
export function removeMember(deps: Pick<Deps, 'db' | 'clock'>): Handler<'removeMember'> {
  return async (req) => {
    // 1. authenticate
    const { operatorId } = requireOperator(req.auth);
    // 2. authorize as owner and remove, audited, in one transaction on the locked team
    await changeTeamAsOwner(deps.db, operatorId, req.path.appId, async (trx, access) => {
      // read before the row goes: the audit names the operator who lost access, not just the membership id
      const member = await findMember(trx, access.app.id, req.path.memberId);
      await storeRemove(trx, access.app.id, req.path.memberId); // 404 MEMBER_NOT_FOUND for a missing member
      await recordAudit(trx, {
        appId: access.app.id,
        action: 'member.removed',
        actor: { type: 'operator', id: operatorId },
        ip: req.ip,
        details: { memberId: req.path.memberId, operatorId: member!.operatorId, role: member!.role },
        at: deps.clock.now(),
      });
    });
    // 3. respond
    return { content: { memberId: req.path.memberId, removed: true } };
  };
}
