// The two fetches every session-holding client is built on (the end user's in onboard.ts, the operator's in
// operatorSession.ts): sign-in and refresh calls carry a DPoP proof of the device key and no token; session calls
// carry the access token too, renewed before it expires and once more when the service says it has. Both get time
// limits and safe retries (transport.ts), and share one server nonce and clock offset (dpop.ts).
import { dpopFetch, type DpopServerState, type DpopSigner } from './dpop.js';
import { OnboardConfigError } from './lowLevel.js';
import type { Principal, SessionManager } from './session.js';
import { transportFetch, type TransportOptions } from './transport.js';

async function errorCodeOf(response: Response): Promise<string | undefined> {
  try {
    const body = (await response.clone().json()) as { code?: unknown };
    return typeof body.code === 'string' ? body.code : undefined;
  } catch {
    return undefined;
  }
}

/** A request refused with these may go through with a renewed token (a refresh also tells whether it ended). */
const RENEWABLE_CODES = new Set(['SDK_AUTH_TOKEN_EXPIRED', 'SDK_AUTH_INVALID_TOKEN']);

/**
 * Session-aware requests: the access token is renewed first when it is about to expire, and a request refused with
 * SDK_AUTH_TOKEN_EXPIRED (or an access token the service no longer accepts) is sent once more after a renewal; when
 * the renewal finds the session revoked, the session ends. The second send is safe for every method: the service
 * authenticates before it does anything, so a request refused for its token had no effect.
 */
function renewingFetch<P extends Principal>(inner: typeof fetch, session: () => SessionManager<P>): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    if (session().accessToken()) await session().ensureFresh();
    const response = await inner(request.clone());
    if (response.status !== 401 || !session().accessToken()) return response;
    if (!RENEWABLE_CODES.has((await errorCodeOf(response)) ?? '')) return response;
    if (!(await session().refresh())) return response;
    return inner(request.clone());
  };
}

/** A signer that always signs with the session manager's current key (it changes after a sign-out). */
function currentSigner<P extends Principal>(session: () => SessionManager<P>): DpopSigner {
  const signer = () => {
    const loaded = session().loadedSigner();
    if (!loaded) throw new OnboardConfigError('call ready() before using the client');
    return loaded;
  };
  return {
    get jkt() {
      return signer().jkt;
    },
    proof: (method, url, opts) => signer().proof(method, url, opts),
  };
}

export interface SessionFetches {
  /** Sign-in and refresh: a proof of the device key, no access token. */
  signInFetch: typeof fetch;
  /** Everything else: the session's access token and a proof, renewed as needed. */
  sessionFetch: typeof fetch;
}

/**
 * The fetches of a client whose session manager is `session()` (a getter: the manager is built with the sign-in
 * fetch's help, so it may not exist yet when these are made).
 */
export function sessionFetches<P extends Principal>(
  session: () => SessionManager<P>,
  baseFetch: typeof fetch,
  transport: TransportOptions,
): SessionFetches {
  const server: DpopServerState = { clockOffsetMs: 0 };
  const signer = currentSigner(session);
  return {
    signInFetch: transportFetch(dpopFetch(signer, { accessToken: () => undefined }, baseFetch, server), transport),
    sessionFetch: renewingFetch(
      transportFetch(dpopFetch(signer, { accessToken: () => session().accessToken() }, baseFetch, server), transport),
      session,
    ),
  };
}
