import type { Deps } from '../../domain/deps';
import { addMember as storeMember, changeTeamAsOwner } from '../../domain/apps/members';
import { recordAudit } from '../../domain/audit/auditLog';
import { requireOperator } from '../operator';
import type { Handler } from '../types';
import { memberContent } from './memberContent';

/**
 * Invites an operator by email (owner only). The membership is committed first and the invitation mailed after: no
 * network call inside the transaction, and a mail failure is logged without undoing the membership (the member gets
 * access by signing in with that address either way).
 */
export function addMember(deps: Pick<Deps, 'db' | 'clock' | 'mailer'>): Handler<'addMember'> {
  return async (req) => {
    // 1. authenticate
    const { operatorId } = requireOperator(req.auth);
    // 2. authorize as owner and add the member, audited, in one transaction on the locked team
    const { app, member } = await changeTeamAsOwner(deps.db, operatorId, req.path.appId, async (trx, access) => {
      const at = deps.clock.now();
      const added = await storeMember(trx, { appId: access.app.id, email: req.body.email, role: req.body.role, at });
      await recordAudit(trx, {
        appId: access.app.id,
        action: 'member.added',
        actor: { type: 'operator', id: operatorId },
        ip: req.ip,
        details: { memberId: added.id, operatorId: added.operatorId, role: added.role },
        at,
      });
      return { app: access.app, member: added };
    });
    // 3. invite, after commit
    const to = member.email!; // invited by email, so the operator has one
    try {
      await deps.mailer.send({
        to,
        kind: 'member-invitation',
        subject: `You are invited to ${app.name} on Onboard`,
        text:
          `You were added to the ${app.network} app "${app.name}" as ${member.role === 'admin' ? 'an admin' : 'a developer'}.\n\n` +
          `Sign in to the Onboard dashboard with this address (${to}) to start working on it.\n`,
      });
    } catch (err) {
      req.log.warn(
        { err, appId: app.id, memberId: member.id },
        'member invitation could not be sent; the membership stands',
      );
    }
    // 4. respond
    return { content: memberContent(member) };
  };
}
