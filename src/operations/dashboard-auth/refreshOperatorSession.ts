import type { Deps } from '../../domain/deps';
import { OPERATOR_SESSION_POLICY } from '../../domain/operators/operators';
import { tokensView } from '../../domain/operators/signIn';
import { sessionServiceFor } from '../../domain/sessions/sessions';
import type { Handler } from '../types';

/** Rotates an operator's refresh token (reuse revokes the family: domain/sessions/sessions.ts). */
export function refreshOperatorSession(
  deps: Pick<Deps, 'db' | 'clock' | 'secrets' | 'sessionSettings'>,
): Handler<'refreshOperatorSession'> {
  const sessions = sessionServiceFor(deps);
  return async (req) => {
    const refreshed = await sessions.refresh(deps.db, {
      audience: 'operator',
      refreshToken: req.body.refreshToken,
      jkt: req.auth.dpopJkt!,
      now: deps.clock.now(),
      policyFor: async () => OPERATOR_SESSION_POLICY,
    });
    return { content: tokensView(refreshed) };
  };
}
