// A Dashboard operator's session: the same machinery as an end user's (session.ts: persisted tokens, a
// non-extractable DPoP key, renewal before expiry in one tab at a time, tabs following each other), with the
// operator as its principal and the Dashboard API's refresh and sign-out. The dashboard passes `sessionFetch` to its
// generated client for every Dashboard API call and `signInFetch` to the sign-in calls, whose answer it hands to
// `establish`. Entry: `@onboard/core/operator`.
import type { Operator, OperatorSignInResult } from '../../../generated/client/types.gen.js';
import type { AuthErrorCode } from './errors.js';
import { defaultKeyStore, type DpopKeyStore } from './keyStore.js';
import { createOnboardClient } from './lowLevel.js';
import { SessionManager, type SessionState } from './session.js';
import { sessionFetches } from './sessionFetch.js';
import { defaultStorage, type StorageAdapter } from './storage.js';
import { createStore, type Readable } from './store.js';
import type { TransportOptions } from './transport.js';

export type OperatorPrincipal = { operator: Operator };
export type OperatorSessionInfo = SessionState<OperatorPrincipal>;

/** `loading` until `ready()` has read the saved session; `signedOut` says why when a session ended. */
export type OperatorSessionState =
  | { status: 'loading' }
  | { status: 'signedOut'; reason?: AuthErrorCode }
  | { status: 'signedIn'; session: OperatorSessionInfo };

export interface OperatorSessionOptions extends TransportOptions {
  /** Where the Dashboard API is (`{dashboardUrl}/api/v1/...`); in the dashboard itself, its own origin. */
  dashboardUrl: string;
  /** Where the session is kept between page loads (default: localStorage in browsers, memory elsewhere). */
  storage?: StorageAdapter;
  /** Where the DPoP key pair is kept (default: IndexedDB in browsers, memory elsewhere). */
  keyStore?: DpopKeyStore;
  /** A fetch implementation (default: the global fetch). */
  fetch?: typeof fetch;
}

const STORAGE_NAME = 'onboard:dashboard';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A stored operator session names its operator. */
function isOperatorPrincipal(value: Record<string, unknown>): boolean {
  return isRecord(value.operator) && typeof value.operator.operatorId === 'string';
}

export class OperatorSession {
  /** Sign-in calls (email verify, OAuth callback, SEP-10 verify): a proof of this device's key, no token. */
  readonly signInFetch: typeof fetch;
  /** Every other Dashboard API call: the access token and a proof, the token renewed as needed. */
  readonly sessionFetch: typeof fetch;
  readonly #store = createStore<OperatorSessionState>({ status: 'loading' });
  readonly #session: SessionManager<OperatorPrincipal>;
  readonly #api: ReturnType<typeof createOnboardClient>;
  #ready: Promise<void> | undefined;

  constructor(options: OperatorSessionOptions) {
    const baseFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
    const transport: TransportOptions = {
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.retry ? { retry: options.retry } : {}),
    };
    const fetches = sessionFetches(() => this.#session, baseFetch, transport);
    this.signInFetch = fetches.signInFetch;
    this.sessionFetch = fetches.sessionFetch;
    const signInApi = createOnboardClient({ baseUrl: options.dashboardUrl, fetch: this.signInFetch });
    this.#api = createOnboardClient({ baseUrl: options.dashboardUrl, fetch: this.sessionFetch });
    this.#session = new SessionManager<OperatorPrincipal>({
      storage: options.storage ?? defaultStorage(),
      keyStore: options.keyStore ?? defaultKeyStore(STORAGE_NAME),
      name: STORAGE_NAME,
      refresh: (refreshToken) => signInApi.refreshOperatorSession({ body: { refreshToken } }),
      isPrincipal: isOperatorPrincipal,
      onChange: (session, reason) =>
        this.#store.set(
          session ? { status: 'signedIn', session } : { status: 'signedOut', ...(reason ? { reason } : {}) },
        ),
    });
  }

  get state(): Readable<OperatorSessionState> {
    return this.#store;
  }

  /** Loads the device key and the saved session (again after `destroy()`). */
  ready(): Promise<void> {
    this.#ready ??= (async () => {
      await this.#session.start();
      if (!this.#session.info()) this.#store.set({ status: 'signedOut' });
    })();
    return this.#ready;
  }

  /** Keeps the session of a sign-in answer (its tokens are bound to this device's key through `signInFetch`). */
  async establish(result: OperatorSignInResult): Promise<void> {
    await this.#session.establish(result.tokens, { operator: result.operator });
  }

  /** Renews the tokens now (they are renewed by themselves before expiry). False when the session ended. */
  refresh(): Promise<boolean> {
    return this.#session.refresh();
  }

  /**
   * Signs out: the service revokes the session (every session of the operator with `everywhere`), and this device
   * forgets it even when the service could not be reached (the tokens are useless without the rotated key).
   */
  async signOut(options: { everywhere?: boolean } = {}): Promise<void> {
    if (this.#session.info()) await this.#api.signOutOperator({ body: options });
    await this.#session.end('SIGNED_OUT');
  }

  /** Stops timers and listeners; the session stays saved for the next page load. */
  destroy(): void {
    this.#session.stop();
    this.#ready = undefined;
  }
}

/** The operator session of a dashboard at `dashboardUrl`. */
export function createOperatorSession(options: OperatorSessionOptions): OperatorSession {
  return new OperatorSession(options);
}
