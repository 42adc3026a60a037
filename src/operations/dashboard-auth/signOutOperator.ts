import type { Deps } from '../../domain/deps';
import { sessionServiceFor } from '../../domain/sessions/sessions';
import type { Handler } from '../types';
import { requireOperator } from '../operator';

/** Ends the current session, or with `everywhere` every session of the operator; their access tokens stop at once. */
export function signOutOperator(
  deps: Pick<Deps, 'db' | 'clock' | 'secrets' | 'sessionSettings'>,
): Handler<'signOutOperator'> {
  const sessions = sessionServiceFor(deps);
  return async (req) => {
    const operator = requireOperator(req.auth);
    const now = deps.clock.now();
    const revokedSessions = req.body?.everywhere
      ? await sessions.revokeAllOf(deps.db, 'operator', operator.operatorId, 'sign_out_everywhere', now)
      : Number(await sessions.revoke(deps.db, operator.sessionId, 'sign_out', now));
    // A concurrent sign-out may have ended this session a moment earlier: it is ended either way.
    return { content: { signedOut: true, revokedSessions: Math.max(1, revokedSessions) } };
  };
}
