import type { Deps } from '../../domain/deps';
import { liveUserSessions } from '../../domain/users/userSessions';
import type { Handler } from '../types';
import { requireUser } from './sessionUser';

/** The user's active sessions of this app, most recently used first, the requesting one marked `current`. */
export function listSessions(deps: Pick<Deps, 'db' | 'clock'>): Handler<'listSessions'> {
  return async (req) => {
    const user = requireUser(req.auth);
    // 1. read
    const live = await liveUserSessions(deps.db, { appId: user.appId, userId: user.userId, now: deps.clock.now() });
    // 2. respond (ip and userAgent only when known)
    return {
      content: {
        sessions: live.map((s) => ({
          sessionId: s.sessionId,
          createdAt: s.createdAt.toISOString(),
          lastUsedAt: s.lastUsedAt.toISOString(),
          expiresAt: s.expiresAt.toISOString(),
          ...(s.userAgent ? { userAgent: s.userAgent } : {}),
          ...(s.ip ? { ip: s.ip } : {}),
          current: s.sessionId === user.sessionId,
        })),
      },
    };
  };
}
