import { DEFAULT_OAUTH_SETTINGS } from '../../config';
import type { Deps } from '../../domain/deps';
import { createOAuthFlows, requireAppClient, requireAppRedirectUri } from '../../domain/oauth/flows';
import { completeUserSignIn, sdkSignInView, type UserSignInDeps } from '../../domain/users/signIn';
import { requireKeyApp } from '../keyApp';
import type { Handler } from '../types';

/**
 * Finishes an end user's Google or GitHub sign-in: the state must be this app's flow, the provider must vouch for a
 * verified email, and the user of that identity (found by the identity or its email, or created with a wallet) gets
 * an SDK session bound to the key of the request's DPoP proof.
 */
export function completeOAuthSignIn(deps: UserSignInDeps & Pick<Deps, 'oauth'>): Handler<'completeOAuthSignIn'> {
  const flows = createOAuthFlows(deps.db, deps.secrets, deps.oauth ?? DEFAULT_OAUTH_SETTINGS);
  return async (req) => {
    const { appId } = req.auth.apiKey!;
    const { provider } = req.path;
    const { code, state, redirectUri, codeVerifier } = req.body;
    // 1. the app's client for the provider (422 unless enabled) and a redirect URI it still lists
    const app = await requireKeyApp(deps.db, appId);
    const client = await requireAppClient(deps.db, deps.secrets, appId, provider);
    await requireAppRedirectUri(deps.db, appId, redirectUri, 'REDIRECT_URI_NOT_ALLOWED');
    // 2. the state (used up) and the code exchange: OAUTH_STATE_INVALID, OAUTH_EXCHANGE_FAILED
    const identity = await flows.finish({
      binding: { provider, audience: 'user', appId, redirectUri },
      client,
      state,
      code,
      codeVerifier,
      now: deps.clock.now(),
    });
    // 3. the user, the wallet and a session bound to the proof's key
    const userAgent = req.headers['user-agent'];
    const result = await completeUserSignIn(deps, {
      app,
      identity: { provider, subject: identity.subject, email: identity.email },
      jkt: req.auth.dpopJkt!,
      client: { ip: req.ip, ...(userAgent ? { userAgent } : {}) },
    });
    // 4. respond
    return { content: sdkSignInView(result) };
  };
}
