// Sessions: one machinery for operators (Dashboard) and end users (SDK API). A session is a family of refresh tokens
// bound to one DPoP key (jkt). Sign-in starts a family; each refresh rotates its token (the old one stops working);
// sign-out revokes the family. Access tokens are stateless JWTs (accessTokens.ts), but the gate checks that their
// session is live, so a revocation ends them at once.
//
// Refresh-token reuse (supabase/auth, Auth0, node-oidc-provider): presenting a rotated token revokes the whole family
// (SDK_REFRESH_TOKEN_REUSED), except within a short grace after its rotation when it is the immediate parent of the
// family's current token: concurrent refreshes by one client (two tabs, a retry after a lost answer) then get the same
// successor, never a second live token. That is possible without storing any token in clear because a successor is
// derived from its parent: successor = HMAC(key, parent). Only someone holding the parent can compute it, and the
// parent is exactly what the request presents.
import { createHmac, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { withTx } from '../../infra/db/database';
import type { SessionSettings } from '../../config';
import type { ServiceSecrets } from '../../infra/secrets/serviceSecret';
import { AppError } from '../errors';
import { newId } from '../ids';
import { createAccessTokenSigner, type AccessTokenSigner, type Audience } from './accessTokens';

export type AuthMethod = 'email' | 'google' | 'github' | 'stellar' | 'sep10';
export type RevokeReason =
  'sign_out' | 'sign_out_everywhere' | 'refresh_token_reuse' | 'revoked_by_user' | 'app_member_removed';

export interface SessionPolicy {
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
}

export interface SessionTokens {
  accessToken: string;
  tokenType: 'DPoP';
  expiresIn: number;
  refreshToken: string;
  refreshTokenExpiresAt: Date;
  sessionId: string;
}

export interface Session {
  id: string;
  audience: Audience;
  subjectId: string;
  appId: string | null;
  jkt: string;
  authMethod: AuthMethod;
  createdAt: Date;
  lastRefreshedAt: Date | null;
  revokedAt: Date | null;
}

interface SessionRow {
  id: string;
  audience: Audience;
  subject_id: string;
  app_id: string | null;
  jkt: string;
  auth_method: AuthMethod;
  created_at: Date;
  last_refreshed_at: Date | null;
  revoked_at: Date | null;
}

interface RefreshTokenRow {
  id: string;
  session_id: string;
  parent_id: string | null;
  expires_at: Date;
  rotated_at: Date | null;
}

function toSession(row: SessionRow): Session {
  return {
    id: row.id,
    audience: row.audience,
    subjectId: row.subject_id,
    appId: row.app_id,
    jkt: row.jkt,
    authMethod: row.auth_method,
    createdAt: row.created_at,
    lastRefreshedAt: row.last_refreshed_at,
    revokedAt: row.revoked_at,
  };
}

export interface StartSessionInput {
  audience: Audience;
  subjectId: string;
  appId?: string;
  network?: string;
  jkt: string;
  authMethod: AuthMethod;
  policy: SessionPolicy;
  now: Date;
}

export interface RefreshInput {
  audience: Audience;
  refreshToken: string;
  /** Thumbprint of the key that signed the request's DPoP proof: must be the session's. */
  jkt: string;
  now: Date;
  /** The lifetimes to issue with (an app's settings may have changed since sign-in). */
  policyFor(session: Session): Promise<SessionPolicy>;
  /** Extra claims for the new access token (end users: the app's network). */
  network?: string;
}

export interface SessionService {
  start(db: Knex, input: StartSessionInput): Promise<SessionTokens>;
  refresh(db: Knex, input: RefreshInput): Promise<SessionTokens & { session: Session }>;
  /** The live session an access token names, or AppError SDK_AUTH_INVALID_TOKEN. */
  requireLive(db: Knex, sessionId: string, audience: Audience, subjectId: string): Promise<Session>;
  revoke(db: Knex, sessionId: string, reason: RevokeReason, now: Date): Promise<boolean>;
  /** Revokes every live session of a subject; returns how many. */
  revokeAllOf(
    db: Knex,
    audience: Audience,
    subjectId: string,
    reason: RevokeReason,
    now: Date,
    appId?: string,
  ): Promise<number>;
  listLive(db: Knex, audience: Audience, subjectId: string, appId?: string): Promise<Session[]>;
  tokens: AccessTokenSigner;
}

export const DEFAULT_SESSION_SETTINGS: SessionSettings = { refreshReuseGraceSeconds: 10 };

/** The session service of the running service: its secret and its configured settings (the defaults when absent). */
export function sessionServiceFor(deps: {
  secrets: ServiceSecrets;
  sessionSettings?: SessionSettings;
}): SessionService {
  return createSessionService(deps.secrets, deps.sessionSettings ?? DEFAULT_SESSION_SETTINGS);
}

const REFRESH_TOKEN_BYTES = 32;

export function createSessionService(secrets: ServiceSecrets, settings: SessionSettings): SessionService {
  const tokens = createAccessTokenSigner(secrets);
  const hashKey = secrets.derive('refresh-token-hash');
  const successorKey = secrets.derive('refresh-token-successor');
  const hashOf = (token: string) => createHmac('sha256', hashKey).update(token, 'utf8').digest('hex');
  const successorOf = (token: string) =>
    createHmac('sha256', successorKey).update(token, 'utf8').digest().toString('base64url');

  async function issue(
    session: Session,
    refreshToken: string,
    refreshExpiresAt: Date,
    policy: SessionPolicy,
    now: Date,
    network?: string,
  ): Promise<SessionTokens> {
    const accessToken = await tokens.sign(
      {
        audience: session.audience,
        subjectId: session.subjectId,
        sessionId: session.id,
        jkt: session.jkt,
        ...(session.appId ? { appId: session.appId } : {}),
        ...(network ? { network } : {}),
      },
      now,
      policy.accessTokenTtlSeconds,
    );
    return {
      accessToken,
      tokenType: 'DPoP',
      expiresIn: policy.accessTokenTtlSeconds,
      refreshToken,
      refreshTokenExpiresAt: refreshExpiresAt,
      sessionId: session.id,
    };
  }

  async function start(db: Knex, input: StartSessionInput): Promise<SessionTokens> {
    const refreshToken = randomBytes(REFRESH_TOKEN_BYTES).toString('base64url');
    const expiresAt = new Date(input.now.getTime() + input.policy.refreshTokenTtlSeconds * 1000);
    const session = await withTx(db, async (trx) => {
      const [row] = (await trx('sessions')
        .insert({
          id: newId('ses'),
          audience: input.audience,
          subject_id: input.subjectId,
          app_id: input.appId ?? null,
          jkt: input.jkt,
          auth_method: input.authMethod,
          created_at: input.now,
        })
        .returning('*')) as SessionRow[];
      await trx('refresh_tokens').insert({
        id: newId('rt'),
        session_id: row!.id,
        token_hash: hashOf(refreshToken),
        created_at: input.now,
        expires_at: expiresAt,
      });
      return toSession(row!);
    });
    return issue(session, refreshToken, expiresAt, input.policy, input.now, input.network);
  }

  async function refresh(db: Knex, input: RefreshInput): Promise<SessionTokens & { session: Session }> {
    const invalid = () =>
      new AppError('SDK_REFRESH_TOKEN_INVALID', { message: 'Unknown refresh token; sign in again' });
    const presentedHash = hashOf(input.refreshToken);
    // The outcome is decided under the family's lock; a reuse revokes the family and commits before answering.
    const outcome = await withTx(db, async (trx) => {
      const found = await trx('refresh_tokens')
        .where({ token_hash: presentedHash })
        .first<{ session_id: string } | undefined>('session_id');
      if (!found) throw invalid();
      // One lock per family: concurrent refreshes of a session run one after the other.
      const sessionRow = await trx('sessions')
        .where({ id: found.session_id })
        .forUpdate()
        .first<SessionRow | undefined>();
      if (!sessionRow || sessionRow.audience !== input.audience || sessionRow.revoked_at) throw invalid();
      const session = toSession(sessionRow);
      if (session.jkt !== input.jkt) {
        throw new AppError('SDK_AUTH_DPOP_INVALID', {
          message: 'The DPoP proof must be signed with the key the session was issued to',
          headers: { 'WWW-Authenticate': 'DPoP error="invalid_dpop_proof"' },
        });
      }
      const token = await trx('refresh_tokens').where({ token_hash: presentedHash }).first<RefreshTokenRow>();
      const policy = await input.policyFor(session);
      if (!token.rotated_at) {
        if (token.expires_at.getTime() <= input.now.getTime()) {
          throw new AppError('SDK_REFRESH_TOKEN_EXPIRED', { message: 'The refresh token expired; sign in again' });
        }
        const successor = successorOf(input.refreshToken);
        const expiresAt = new Date(input.now.getTime() + policy.refreshTokenTtlSeconds * 1000);
        await trx('refresh_tokens').where({ id: token.id }).update({ rotated_at: input.now });
        await trx('refresh_tokens').insert({
          id: newId('rt'),
          session_id: session.id,
          token_hash: hashOf(successor),
          parent_id: token.id,
          created_at: input.now,
          expires_at: expiresAt,
        });
        await trx('sessions').where({ id: session.id }).update({ last_refreshed_at: input.now });
        return { kind: 'rotated' as const, session, refreshToken: successor, expiresAt, policy };
      }
      // A rotated token: the grace case, or reuse.
      const current = await trx('refresh_tokens')
        .where({ session_id: session.id })
        .whereNull('rotated_at')
        .first<RefreshTokenRow | undefined>();
      const withinGrace = input.now.getTime() - token.rotated_at.getTime() <= settings.refreshReuseGraceSeconds * 1000;
      if (
        current &&
        current.parent_id === token.id &&
        withinGrace &&
        current.expires_at.getTime() > input.now.getTime()
      ) {
        return {
          kind: 'rotated' as const,
          session,
          refreshToken: successorOf(input.refreshToken),
          expiresAt: current.expires_at,
          policy,
        };
      }
      await trx('sessions')
        .where({ id: session.id })
        .update({ revoked_at: input.now, revoked_reason: 'refresh_token_reuse' });
      return { kind: 'reused' as const };
    });
    if (outcome.kind === 'reused') {
      throw new AppError('SDK_REFRESH_TOKEN_REUSED', {
        message: 'Refresh token reuse detected; the session was revoked. Sign in again',
      });
    }
    const issued = await issue(
      outcome.session,
      outcome.refreshToken,
      outcome.expiresAt,
      outcome.policy,
      input.now,
      input.network,
    );
    return { ...issued, session: outcome.session };
  }

  async function requireLive(db: Knex, sessionId: string, audience: Audience, subjectId: string): Promise<Session> {
    const row = await db('sessions').where({ id: sessionId }).first<SessionRow | undefined>();
    if (!row || row.revoked_at || row.audience !== audience || row.subject_id !== subjectId) {
      throw new AppError('SDK_AUTH_INVALID_TOKEN', { message: 'The session ended; sign in again' });
    }
    return toSession(row);
  }

  async function revoke(db: Knex, sessionId: string, reason: RevokeReason, now: Date): Promise<boolean> {
    const n = await db('sessions')
      .where({ id: sessionId })
      .whereNull('revoked_at')
      .update({ revoked_at: now, revoked_reason: reason });
    return n > 0;
  }

  async function revokeAllOf(
    db: Knex,
    audience: Audience,
    subjectId: string,
    reason: RevokeReason,
    now: Date,
    appId?: string,
  ): Promise<number> {
    const q = db('sessions').where({ audience, subject_id: subjectId }).whereNull('revoked_at');
    if (appId) q.andWhere({ app_id: appId });
    return q.update({ revoked_at: now, revoked_reason: reason });
  }

  async function listLive(db: Knex, audience: Audience, subjectId: string, appId?: string): Promise<Session[]> {
    const q = db('sessions')
      .where({ audience, subject_id: subjectId })
      .whereNull('revoked_at')
      .orderBy('created_at', 'desc');
    if (appId) q.andWhere({ app_id: appId });
    return ((await q) as SessionRow[]).map(toSession);
  }

  return { start, refresh, requireLive, revoke, revokeAllOf, listLive, tokens };
}
