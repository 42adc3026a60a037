// @onboard/core: the thin core of the client library. Every operation of the contract, called through the generated
// client, with the API's envelopes turned into typed outcomes. API errors, network failures and malformed answers are
// returned as `{ ok: false, ... }`, never thrown; only a misconfiguration (a bad key or base URL) throws, at creation.
// With `dpop`, every request carries a DPoP proof and, once a session is set, its access token (./dpop.ts); state
// machines and the React binding build on this in later packages.
import { createClient, type Client } from '../../../generated/client/client';
import * as operations from '../../../generated/client/sdk.gen';
import type { ErrorCode } from '../../../generated/server/catalogue.gen';
import { dpopFetch, type DpopSigner } from './dpop';

export { createDpopSigner, type DpopSigner } from './dpop';
/** Sponsored transactions as `{ status: 'built' | 'success' | 'pending' | 'error' }` outcomes: tx.build, tx.run... */
export * as tx from './transactions';

export type Network = 'testnet' | 'mainnet';

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

export type Success<T> = { ok: true; status: number; code: string; content: T };
export type Failure = {
  ok: false;
  /** HTTP status; 0 when no answer arrived. */
  status: number;
  /** A catalogue code, or NETWORK_ERROR / INVALID_RESPONSE for failures the client saw itself. */
  code: ErrorCode | 'NETWORK_ERROR' | 'INVALID_RESPONSE';
  message?: string;
  details?: Record<string, unknown>;
  /** The whole error body, for code-specific fields (applicationId, resultCode, limitAmount, kycUrl...). */
  body?: Record<string, unknown>;
};
export type Outcome<T> = Success<T> | Failure;

type Operations = typeof operations;
type OperationName = { [K in keyof Operations]: Operations[K] extends (...args: any[]) => any ? K : never }[keyof Operations];
type OptionsOf<K extends OperationName> = Omit<NonNullable<Parameters<Operations[K]>[0]>, 'client'>;
type ContentOf<K extends OperationName> = NonNullable<Awaited<ReturnType<Operations[K]>>['data']> extends { content: infer C } ? C : never;
// An operation whose options are all optional can be called without arguments.
type Call<K extends OperationName> = {} extends OptionsOf<K>
  ? (options?: OptionsOf<K>) => Promise<Outcome<ContentOf<K>>>
  : (options: OptionsOf<K>) => Promise<Outcome<ContentOf<K>>>;

/** The tokens of a sign-in or refresh answer (SessionTokens). */
export interface SessionTokensLike {
  accessToken: string;
  refreshToken: string;
  sessionId: string;
}

export interface SessionHandle {
  /** Use these tokens from now on (after a sign-in or a refresh). */
  set(tokens: SessionTokensLike): void;
  clear(): void;
  /** The current tokens, if any (store the refresh token like a password). */
  current(): SessionTokensLike | undefined;
}

export type OnboardClient = { [K in OperationName]: Call<K> } & {
  /** The network the key (or option) selects. */
  readonly network: Network;
  /** The session whose access token DPoP requests carry (only with the `dpop` option). */
  readonly session: SessionHandle;
  /** The underlying generated client, for advanced use. */
  readonly raw: Client;
};

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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Turns a generated-client result (or a thrown fetch failure) into an Outcome. */
export async function toOutcome<T>(pending: Promise<{ data?: unknown; error?: unknown; response?: Response }>): Promise<Outcome<T>> {
  let result: { data?: unknown; error?: unknown; response?: Response };
  try {
    result = await pending;
  } catch (err) {
    return { ok: false, status: 0, code: 'NETWORK_ERROR', message: err instanceof Error ? err.message : String(err) };
  }
  if (!result.response) {
    // The generated client reports a failed fetch as an error without a response.
    const error = result.error;
    return { ok: false, status: 0, code: 'NETWORK_ERROR', message: error instanceof Error ? error.message : String(error) };
  }
  const status = result.response.status;
  const body = result.response?.ok ? result.data : result.error;
  if (result.response?.ok && isRecord(body) && body.success === true && typeof body.code === 'string') {
    return { ok: true, status, code: body.code, content: body.content as T };
  }
  if (!result.response?.ok && isRecord(body) && body.success === false && typeof body.code === 'string') {
    return {
      ok: false,
      status,
      code: body.code as ErrorCode,
      ...(typeof body.message === 'string' ? { message: body.message } : {}),
      ...(isRecord(body.details) ? { details: body.details } : {}),
      body,
    };
  }
  return { ok: false, status, code: 'INVALID_RESPONSE', message: `unexpected ${status} answer without the Onboard envelope` };
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
    client[name] = (opts?: object) => toOutcome((fn as (o: object) => Promise<any>)({ ...opts, client: raw }));
  }
  return client as OnboardClient;
}
