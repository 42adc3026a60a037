import type { Deps } from '../../domain/deps';
import { sessionServiceFor } from '../../domain/sessions/sessions';
import type { Handler } from '../types';
import { requireUser } from './sessionUser';

/** Ends the current session, or with `everywhere` every session of the user in this app; their tokens stop at once. */
export function signOut(deps: Pick<Deps, 'db' | 'clock' | 'secrets' | 'sessionSettings'>): Handler<'signOut'> {
  const sessions = sessionServiceFor(deps);
  return async (req) => {
    const user = requireUser(req.auth);
    const everywhere = req.body?.everywhere ?? false;
    const now = deps.clock.now();
    // 1. revoke (the user's sessions of other apps are theirs to end there)
    const revoked = everywhere
      ? await sessions.revokeAllOf(deps.db, 'user', user.userId, 'sign_out_everywhere', now, user.appId)
      : Number(await sessions.revoke(deps.db, user.sessionId, 'sign_out', now));
    // 2. respond; a concurrent sign-out may have ended this session a moment earlier: it is ended either way
    return { content: { everywhere, revokedSessions: Math.max(1, revoked) } };
  };
}
