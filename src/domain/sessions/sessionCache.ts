// The gate's in-process cache of live sessions, so that a session-bound request costs no query on the pool for its
// liveness: a notified cache (src/infra/db/notifiedCache.ts: bounded, exact across processes) on channel
// `onboard_sessions`, where migration 0032's trigger notifies a session's id whenever its row changes or goes (sign-out,
// revocation of all of a user's sessions, refresh-token reuse, a refresh). Only live sessions are kept: an ended one is
// read every time, and refused.
import type { Knex } from 'knex';
import type { ChangeFeed } from '../../infra/db/changeFeed';
import { createNotifiedCache, DEFAULT_CACHE_BOUNDS } from '../../infra/db/notifiedCache';
import { AppError } from '../errors';
import type { Audience } from './accessTokens';

export const SESSIONS_CHANNEL = 'onboard_sessions';

interface LiveSession {
  id: string;
  audience: Audience;
  subjectId: string;
}

export interface SessionCache {
  /**
   * SDK_AUTH_INVALID_TOKEN unless the session exists, is not revoked, and is of this audience and subject.
   * `caughtUp`: the request's own wait for the change feed (notifiedCache.ts feedCaughtUp), when it started one.
   */
  requireLive(
    sessionId: string,
    audience: Audience,
    subjectId: string,
    nowMs: number,
    caughtUp?: Promise<boolean>,
  ): Promise<void>;
}

export function createSessionCache(db: Knex, feed: ChangeFeed | undefined, opts = DEFAULT_CACHE_BOUNDS): SessionCache {
  const cache = createNotifiedCache<LiveSession>(feed, {
    channel: SESSIONS_CHANNEL,
    concerns: (sessionId, session) => session.id === sessionId,
    ...opts,
  });

  async function loadLive(sessionId: string): Promise<LiveSession | undefined> {
    const row = await db('sessions')
      .where({ id: sessionId })
      .whereNull('revoked_at')
      .first<{ id: string; audience: Audience; subject_id: string } | undefined>('id', 'audience', 'subject_id');
    return row ? { id: row.id, audience: row.audience, subjectId: row.subject_id } : undefined;
  }

  return {
    async requireLive(sessionId, audience, subjectId, nowMs, caughtUp) {
      const live = await cache.get(sessionId, nowMs, () => loadLive(sessionId), caughtUp);
      if (!live || live.audience !== audience || live.subjectId !== subjectId) {
        throw new AppError('SDK_AUTH_INVALID_TOKEN', { message: 'The session ended; sign in again' });
      }
    },
  };
}
