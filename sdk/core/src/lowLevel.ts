// The low-level client: every operation of the contract, called through the generated client, with the API's
// envelopes turned into typed outcomes (a backend with a secret key uses it directly; the Onboard object of
// ./onboard.ts builds on it). API errors, network failures and malformed answers are returned as
// `{ ok: false, ... }`, never thrown; only a misconfiguration (a bad key or base URL) throws, at creation. With
// `dpop`, every request carries a DPoP proof and, once a session is set, its access token (./dpop.ts).
import { createClient } from '../../../generated/client/client/index.js';
import * as operations from '../../../generated/client/sdk.gen.js';
import { dpopFetch, type DpopSigner } from './dpop.js';
import { toOutcome } from './outcome.js';
import type { Network, OnboardClient, SessionHandle, SessionTokensLike } from './types.js';

export interface OnboardClientOptions {
  /** The service's base URL, e.g. https://api.example.com or http://127.0.0.1:8080. */
  baseUrl: string;
  /** A publishable key in frontend code (pub_...); a secret key only in backend code (sec_...). */
  apiKey?: string;
  /** Expected network; must match the key's prefix when both are given. Defaults to the key's network, else testnet. */
  network?: Network;
  /** Extra headers for every request. */
  headers?: Record<string, string>;
  /**
   * The device's DPoP signer (createDpopSigner). With it, every request carries a fresh proof, the session's access
   * token once `session.set` was called, and the server's nonce (retried once when the server asks for a new one).
   * Needed for every SDK API call after sign-in and for the sign-in and refresh calls themselves.
   */
  dpop?: DpopSigner;
  /** A fetch implementation (defaults to the global fetch). */
  fetch?: typeof fetch;
}

const KEY_PATTERN = /^(pub|sec)_(testnet|mainnet)_[A-Za-z0-9]{24,128}$/;

export class OnboardConfigError extends Error {}

function networkOf(options: OnboardClientOptions): Network {
  if (!options.apiKey) return options.network ?? 'testnet';
  const match = KEY_PATTERN.exec(options.apiKey);
  if (!match) throw new OnboardConfigError('apiKey is not an Onboard key (pub_<network>_... or sec_<network>_...)');
  const keyNetwork = match[2] as Network;
  if (options.network && options.network !== keyNetwork) {
    throw new OnboardConfigError(`apiKey is a ${keyNetwork} key but network is ${options.network}`);
  }
  return keyNetwork;
}

export function createOnboardClient(options: OnboardClientOptions): OnboardClient {
  try {
    new URL(options.baseUrl);
  } catch {
    throw new OnboardConfigError(`baseUrl is not a URL: ${options.baseUrl}`);
  }
  const network = networkOf(options);
  let tokens: SessionTokensLike | undefined;
  const session: SessionHandle = {
    set: (t) => {
      tokens = { accessToken: t.accessToken, refreshToken: t.refreshToken, sessionId: t.sessionId };
    },
    clear: () => {
      tokens = undefined;
    },
    current: () => tokens,
  };
  const baseFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const raw = createClient({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { ...(options.apiKey ? { 'x-service-api-key': options.apiKey } : {}), ...options.headers },
    fetch: options.dpop ? dpopFetch(options.dpop, { accessToken: () => tokens?.accessToken }, baseFetch) : baseFetch,
  });
  const client: Record<string, unknown> = { network, raw, session };
  for (const [name, fn] of Object.entries(operations)) {
    if (typeof fn !== 'function') continue;
    const call = fn as (o: object) => Promise<{ data?: unknown; error?: unknown; response?: Response }>;
    client[name] = (opts?: object) => toOutcome(call({ ...opts, client: raw }));
  }
  return client as OnboardClient;
}
