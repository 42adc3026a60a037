import { DEFAULT_OAUTH_SETTINGS } from '../../config';
import type { Deps } from '../../domain/deps';
import { createOAuthFlows, requireDashboardClient, requireDashboardRedirectUri } from '../../domain/oauth/flows';
import { createAbuseLimiter } from '../../domain/limits/abuseLimits';
import type { Handler } from '../types';

/** Starts per client IP per 10 minutes: the operation is public and every start stores a state. */
const STARTS_PER_IP_PER_10_MINUTES = 60;

/** Starts an operator's Google or GitHub sign-in with the Dashboard's own client: answers where to send the browser. */
export function startOperatorOAuthSignIn(
  deps: Pick<Deps, 'db' | 'clock' | 'secrets' | 'limits' | 'oauth'>,
): Handler<'startOperatorOAuthSignIn'> {
  const settings = deps.oauth ?? DEFAULT_OAUTH_SETTINGS;
  const flows = createOAuthFlows(deps.db, deps.secrets, settings);
  const perIp = createAbuseLimiter(deps, deps.limits?.store ?? 'memory', {
    name: 'operator_oauth_start_ip',
    points: STARTS_PER_IP_PER_10_MINUTES,
    durationSeconds: 600,
  });
  return async (req) => {
    const { provider } = req.path;
    const { redirectUri, codeChallenge } = req.query;
    // 1. abuse limit per network
    await perIp.consume(req.ip);
    // 2. the Dashboard's client for the provider (422 without one) and one of its configured callbacks
    const client = requireDashboardClient(settings, provider);
    requireDashboardRedirectUri(settings, redirectUri);
    // 3. a single-use state bound to this flow, and the provider's authorization URL
    const started = await flows.start({
      binding: { provider, audience: 'operator', redirectUri },
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
