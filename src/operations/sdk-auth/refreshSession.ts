import type { Deps } from '../../domain/deps';
import { AppError } from '../../domain/errors';
import { tokensView } from '../../domain/operators/signIn';
import { sessionServiceFor } from '../../domain/sessions/sessions';
import { recordSessionClient, userSessionPolicy } from '../../domain/users/userSessions';
import { recordSeen } from '../../domain/users/users';
import { requireKeyApp } from '../keyApp';
import type { Handler } from '../types';

/**
 * Rotates an end user's refresh token (reuse revokes the family: domain/sessions/sessions.ts), with the lifetimes of
 * the app's current settings. A refresh token of another app's session is unknown here.
 */
export function refreshSession(
  deps: Pick<Deps, 'db' | 'clock' | 'secrets' | 'sessionSettings'>,
): Handler<'refreshSession'> {
  const sessions = sessionServiceFor(deps);
  return async (req) => {
    const { appId, network } = req.auth.apiKey!;
    const now = deps.clock.now();
    // 1. the app's current token lifetimes (read before the rotation, which holds the session's lock)
    const app = await requireKeyApp(deps.db, appId);
    // 2. rotate, under the session's lock
    const refreshed = await sessions.refresh(deps.db, {
      audience: 'user',
      refreshToken: req.body.refreshToken,
      jkt: req.auth.dpopJkt!,
      now,
      network,
      policyFor: async (session) => {
        if (session.appId !== app.id)
          throw new AppError('SDK_REFRESH_TOKEN_INVALID', { message: 'Unknown refresh token; sign in again' });
        return userSessionPolicy(app);
      },
    });
    // 3. the user was seen, from this client
    await recordSeen(deps.db, refreshed.session.subjectId, now);
    await recordSessionClient(deps.db, refreshed.sessionId, {
      ip: req.ip,
      ...(req.headers['user-agent'] ? { userAgent: req.headers['user-agent'] } : {}),
    });
    // 4. respond
    return { content: tokensView(refreshed) };
  };
}
