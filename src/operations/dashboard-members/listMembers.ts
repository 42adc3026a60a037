import type { Deps } from '../../domain/deps';
import { requireAppAccess } from '../../domain/apps/access';
import { listMembers as storeMembers } from '../../domain/apps/members';
import { requireOperator } from '../operator';
import type { Handler } from '../types';
import { memberContent } from './memberContent';

/** The app's team, owner first, pending invitations included; every member may read it. */
export function listMembers(deps: Pick<Deps, 'db'>): Handler<'listMembers'> {
  return async (req) => {
    // 1. authenticate and authorize (any member of an active app)
    const { operatorId } = requireOperator(req.auth);
    await requireAppAccess(deps.db, operatorId, req.path.appId);
    // 2. respond
    const members = await storeMembers(deps.db, req.path.appId);
    return { content: { members: members.map(memberContent) } };
  };
}
