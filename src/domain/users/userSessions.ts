// End-user sessions as the SDK API shows them: the app's token lifetimes, the client each session was last used from
// (its last sign-in or refresh: the moments a client comes for tokens), and the user's live sessions of one app. The
// token machinery itself (rotation, reuse, revocation) is the shared one in ../sessions/sessions.ts.
import type { Knex } from 'knex';
import type { App } from '../apps/store';
import type { SessionPolicy } from '../sessions/sessions';

/** The lifetimes of an app's end-user tokens, from its current settings. */
export function userSessionPolicy(app: Pick<App, 'accessTokenTtlMinutes' | 'refreshTokenTtlDays'>): SessionPolicy {
  return {
    accessTokenTtlSeconds: app.accessTokenTtlMinutes * 60,
    refreshTokenTtlSeconds: app.refreshTokenTtlDays * 86_400,
  };
}

/** Where a session was last used from, as the request showed it. */
export interface SessionClient {
  ip?: string;
  userAgent?: string;
}

// The contract's bounds on listSessions (ip: an IPv6 address at most; userAgent 512).
const MAX_IP = 45;
const MAX_USER_AGENT = 512;

/** Records the client of a sign-in or refresh on its session. */
export async function recordSessionClient(db: Knex, sessionId: string, client: SessionClient): Promise<void> {
  await db('sessions')
    .where({ id: sessionId })
    .update({
      client_ip: client.ip?.slice(0, MAX_IP) || null,
      client_user_agent: client.userAgent?.slice(0, MAX_USER_AGENT) || null,
    });
}

export interface UserSessionView {
  sessionId: string;
  createdAt: Date;
  lastUsedAt: Date;
  /** When the session's current refresh token expires. */
  expiresAt: Date;
  ip: string | null;
  userAgent: string | null;
}

/** The contract's maxItems for listSessions. */
const MAX_LISTED = 100;

/**
 * The user's active sessions of one app (not revoked, refresh token not expired), most recently used first; with
 * `sessionId`, only that one.
 */
export async function liveUserSessions(
  db: Knex,
  input: { appId: string; userId: string; now: Date; sessionId?: string },
): Promise<UserSessionView[]> {
  const query = db('sessions as s')
    .join('refresh_tokens as rt', function () {
      this.on('rt.session_id', 's.id').andOnNull('rt.rotated_at');
    })
    .where({ 's.audience': 'user', 's.subject_id': input.userId, 's.app_id': input.appId })
    .whereNull('s.revoked_at')
    .andWhere('rt.expires_at', '>', input.now)
    .select('s.id', 's.created_at', 's.last_refreshed_at', 's.client_ip', 's.client_user_agent', 'rt.expires_at')
    .orderByRaw('coalesce(s.last_refreshed_at, s.created_at) desc, s.id desc')
    .limit(MAX_LISTED);
  if (input.sessionId) query.andWhere('s.id', input.sessionId);
  const rows = (await query) as {
    id: string;
    created_at: Date;
    last_refreshed_at: Date | null;
    client_ip: string | null;
    client_user_agent: string | null;
    expires_at: Date;
  }[];
  return rows.map((r) => ({
    sessionId: r.id,
    createdAt: r.created_at,
    lastUsedAt: r.last_refreshed_at ?? r.created_at,
    expiresAt: r.expires_at,
    ip: r.client_ip,
    userAgent: r.client_user_agent,
  }));
}
