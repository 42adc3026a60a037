// The contract's Member object (Member.yaml); `email` is absent for an operator who signs in with a Stellar account.
import type { OperationTypes } from '../../../generated/server/catalogue.gen';
import type { Member } from '../../domain/apps/members';

export type MemberContent = OperationTypes['updateMember']['content'];

export function memberContent(member: Member): MemberContent {
  return {
    memberId: member.id,
    operatorId: member.operatorId,
    ...(member.email ? { email: member.email } : {}),
    role: member.role,
    invitedAt: member.invitedAt.toISOString(),
    joinedAt: member.joinedAt?.toISOString() ?? null,
  };
}
