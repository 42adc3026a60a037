import { DEFAULT_OAUTH_SETTINGS } from '../../config';
import type { Deps } from '../../domain/deps';
import { createOAuthFlows, requireAppClient, requireAppRedirectUri } from '../../domain/oauth/flows';
import { createAbuseLimiter } from '../../domain/limits/abuseLimits';
import type { Handler } from '../types';

/** Starts per client IP per 10 minutes, per app: every start stores a state, and publishable keys are public. */
const STARTS_PER_IP_PER_10_MINUTES = 60;

/** Starts an end user's Google or GitHub sign-in with the app's own client: answers where to send the browser. */
export function startOAuthSignIn(
  deps: Pick<Deps, 'db' | 'clock' | 'secrets' | 'limits' | 'oauth'>,
): Handler<'startOAuthSignIn'> {
  const flows = createOAuthFlows(deps.db, deps.secrets, deps.oauth ?? DEFAULT_OAUTH_SETTINGS);
  const perIp = createAbuseLimiter(deps, deps.limits?.store ?? 'memory', {
    name: 'user_oauth_start_ip',
    points: STARTS_PER_IP_PER_10_MINUTES,
    durationSeconds: 600,
  });
  return async (req) => {
    const { appId } = req.auth.apiKey!;
    const { provider } = req.path;
    const { redirectUri, codeChallenge } = req.query;
    // 1. abuse limit per app and network
    await perIp.consume(`${appId}:${req.ip}`);
    // 2. the app's client for the provider (422 unless enabled with credentials) and one of its redirect URIs
    const client = await requireAppClient(deps.db, deps.secrets, appId, provider);
    await requireAppRedirectUri(deps.db, appId, redirectUri, 'APPLICATION_HAS_NO_REDIRECT_URIS');
    // 3. a single-use state bound to this flow and app, and the provider's authorization URL
    const started = await flows.start({
      binding: { provider, audience: 'user', appId, redirectUri },
      client,
      codeChallenge,
      now: deps.clock.now(),
    });
    // 4. respond
    return {
      content: {
        authorizationUrl: started.authorizationUrl,
        state: started.state,
        expiresAt: started.expiresAt.toISOString(),
      },
    };
  };
}
