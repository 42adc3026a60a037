import { DEFAULT_OAUTH_SETTINGS } from '../../config';
import type { Deps } from '../../domain/deps';
import { createOAuthFlows, requireDashboardClient } from '../../domain/oauth/flows';
import { operatorForIdentity } from '../../domain/oauth/operatorIdentity';
import { operatorView } from '../../domain/operators/operators';
import { completeOperatorSignIn, tokensView } from '../../domain/operators/signIn';
import { sessionServiceFor } from '../../domain/sessions/sessions';
import type { Handler } from '../types';

/**
 * Finishes an operator's Google or GitHub sign-in: the state must be this flow's, the provider must vouch for a
 * verified email, and the operator with that email (created at the first sign-in) gets a Dashboard session bound to
 * the key of the request's DPoP proof.
 */
export function completeOperatorOAuthSignIn(
  deps: Pick<Deps, 'db' | 'clock' | 'secrets' | 'sessionSettings' | 'oauth'>,
): Handler<'completeOperatorOAuthSignIn'> {
  const settings = deps.oauth ?? DEFAULT_OAUTH_SETTINGS;
  const flows = createOAuthFlows(deps.db, deps.secrets, settings);
  const sessions = sessionServiceFor(deps);
  return async (req) => {
    const { provider } = req.path;
    const { code, state, redirectUri, codeVerifier } = req.body;
    const now = deps.clock.now();
    // 1. the Dashboard's client for the provider (422 without one)
    const client = requireDashboardClient(settings, provider);
    // 2. the state (used up) and the code exchange: OAUTH_STATE_INVALID, OAUTH_EXCHANGE_FAILED
    const identity = await flows.finish({
      binding: { provider, audience: 'operator', redirectUri },
      client,
      state,
      code,
      codeVerifier,
      now,
    });
    // 3. the operator of that verified email, and a session bound to the proof's key
    const operator = await operatorForIdentity(deps.db, identity);
    const tokens = await completeOperatorSignIn(deps.db, sessions, {
      operator,
      jkt: req.auth.dpopJkt!,
      method: provider,
      now,
    });
    // 4. respond
    return { content: { tokens: tokensView(tokens), operator: operatorView(operator) } };
  };
}
