// The end of every operator sign-in (email code today; SEP-10, Google and GitHub in the sessions issue): the
// operator's pending invitations become joined, and a Dashboard session is started, bound to the DPoP key that
// signed the sign-in request's proof.
import type { Knex } from 'knex';
import type { Operator } from '../apps/store';
import { markInvitationsJoined } from '../apps/members';
import type { AuthMethod, SessionService, SessionTokens } from '../sessions/sessions';
import { OPERATOR_SESSION_POLICY } from './operators';

export async function completeOperatorSignIn(
  db: Knex,
  sessions: SessionService,
  input: { operator: Operator; jkt: string; method: AuthMethod; now: Date },
): Promise<SessionTokens> {
  await markInvitationsJoined(db, input.operator.id, input.now);
  return sessions.start(db, {
    audience: 'operator',
    subjectId: input.operator.id,
    jkt: input.jkt,
    authMethod: input.method,
    policy: OPERATOR_SESSION_POLICY,
    now: input.now,
  });
}

/** Tokens as the contract shows them (SessionTokens schema). */
export function tokensView(t: SessionTokens) {
  return {
    accessToken: t.accessToken,
    tokenType: t.tokenType,
    expiresIn: t.expiresIn,
    refreshToken: t.refreshToken,
    refreshTokenExpiresAt: t.refreshTokenExpiresAt.toISOString(),
    sessionId: t.sessionId,
  };
}
