import type { Deps } from '../../domain/deps';
import { AppError } from '../../domain/errors';
import { sessionServiceFor } from '../../domain/sessions/sessions';
import { liveUserSessions } from '../../domain/users/userSessions';
import type { Handler } from '../types';
import { requireUser } from './sessionUser';

/** Revokes one of the user's active sessions of this app (e.g. a lost device); another's answers like an unknown one. */
export function revokeSession(
  deps: Pick<Deps, 'db' | 'clock' | 'secrets' | 'sessionSettings'>,
): Handler<'revokeSession'> {
  const sessions = sessionServiceFor(deps);
  return async (req) => {
    const user = requireUser(req.auth);
    const now = deps.clock.now();
    const notFound = () => new AppError('SDK_SESSION_NOT_FOUND', { message: 'No active session with this id' });
    // 1. the session must be an active one of this user in this app
    const [session] = await liveUserSessions(deps.db, {
      appId: user.appId,
      userId: user.userId,
      now,
      sessionId: req.path.sessionId,
    });
    if (!session) throw notFound();
    // 2. revoke; a concurrent revocation that got there first leaves nothing active to revoke
    if (!(await sessions.revoke(deps.db, session.sessionId, 'revoked_by_user', now))) throw notFound();
    // 3. respond
    return { content: { sessionId: session.sessionId, revoked: true } };
  };
}
