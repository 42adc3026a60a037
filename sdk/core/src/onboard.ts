// The client library's main object: what a frontend creates once with its publishable key. It owns the device's
// DPoP key and session (session.ts), the sign-in flows (auth.ts), and the state machines of balances, history and
// transactions (data.ts), and calls the API through one transport: a fresh DPoP proof per attempt, time limits and
// safe retries (transport.ts), the access token renewed before it expires and once more when the service says it
// has (sessionFetch.ts).
import { AuthFlows, POPUP_NAME, type AuthState, type OAuthOptions } from './auth.js';
import { DataStores } from './data.js';
import { defaultKeyStore, type DpopKeyStore } from './keyStore.js';
import { createOnboardClient, OnboardConfigError } from './lowLevel.js';
import { SessionManager } from './session.js';
import { sessionFetches } from './sessionFetch.js';
import { defaultStorage, type StorageAdapter } from './storage.js';
import type { Readable } from './store.js';
import type { TransportOptions } from './transport.js';
import type { Network, OnboardClient } from './types.js';
import { isUserPrincipal, type SessionInfo, type UserPrincipal } from './userSession.js';
import type { WalletAdapter } from './walletAdapter.js';

export interface OnboardOptions extends TransportOptions {
  /** The app's publishable key (pub_testnet_... or pub_mainnet_...); never a secret key in frontend code. */
  publishableKey: string;
  /** The service's SDK API base URL, e.g. https://api.example.com. */
  baseUrl: string;
  /** Where the session is kept between page loads (default: localStorage in browsers, memory elsewhere). */
  storage?: StorageAdapter;
  /** Where the DPoP key pair is kept (default: IndexedDB in browsers, memory elsewhere). */
  keyStore?: DpopKeyStore;
  /** Opens the provider's page for a redirect-mode OAuth sign-in (default: this page navigates there). */
  openUrl?: (url: string) => void;
  /** Finish an OAuth redirect found in the page's address during ready() (default true in browsers). */
  completeOAuthOnReady?: boolean;
  /** A fetch implementation (default: the global fetch). */
  fetch?: typeof fetch;
  /**
   * Adapters of the users' own Stellar wallets the app offers (loginWithWallet). After a reload, the adapter that
   * signed in is found here by its id to sign the session's transactions.
   */
  walletAdapters?: WalletAdapter[];
}

export class Onboard {
  /** Every operation of the SDK API with this device's session (outcomes, never thrown). */
  readonly api: OnboardClient;
  readonly network: Network;
  readonly #session: SessionManager<UserPrincipal>;
  readonly #auth: AuthFlows;
  readonly #data: DataStores;
  readonly #options: OnboardOptions;
  #ready: Promise<void> | undefined;
  /** The adapter that signed in during this page's life (an adapter object may not be in walletAdapters). */
  #walletAdapter: WalletAdapter | undefined;

  constructor(options: OnboardOptions) {
    if (!options.publishableKey?.startsWith('pub_')) {
      throw new OnboardConfigError('publishableKey must be a publishable key (pub_...); secret keys stay on servers');
    }
    this.#options = options;
    const name = `onboard:${options.publishableKey}`;
    const storage = options.storage ?? defaultStorage();
    const baseFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
    const transport: TransportOptions = {
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.retry ? { retry: options.retry } : {}),
    };
    // Two API handles over one key and nonce: sign-in and refresh calls carry no access token, the others do.
    const fetches = sessionFetches(() => this.#session, baseFetch, transport);
    const authApi = createOnboardClient({
      baseUrl: options.baseUrl,
      apiKey: options.publishableKey,
      fetch: fetches.signInFetch,
    });
    this.#session = new SessionManager<UserPrincipal>({
      storage,
      keyStore: options.keyStore ?? defaultKeyStore(name),
      name,
      refresh: (refreshToken) => authApi.refreshSession({ body: { refreshToken } }),
      isPrincipal: isUserPrincipal,
      onChange: (info, reason) => {
        this.#auth.sessionChanged(info, reason);
        this.#data.sessionChanged(info);
      },
    });
    this.api = createOnboardClient({
      baseUrl: options.baseUrl,
      apiKey: options.publishableKey,
      fetch: fetches.sessionFetch,
    });
    this.network = this.api.network;
    this.#auth = new AuthFlows({
      api: authApi,
      sessionApi: this.api,
      session: this.#session,
      storage,
      oauthKey: `${name}:oauth`,
      ...(options.openUrl ? { openUrl: options.openUrl } : {}),
    });
    this.#data = new DataStores(this.api, this.#session, () => this.#currentWalletAdapter());
  }

  /**
   * Loads the device key and the saved session, and finishes an OAuth redirect found in the page's address. Call it
   * once at start (calling it again, e.g. after `destroy()` under React StrictMode, starts the client again).
   */
  ready(): Promise<void> {
    this.#ready ??= (async () => {
      await this.#session.start();
      this.#auth.restored();
      const href = globalThis.location?.href;
      // In the sign-in popup itself the page that opened it finishes the flow (it watches the popup come back).
      const inPopup = (globalThis as { name?: unknown }).name === POPUP_NAME && Boolean(globalThis.opener);
      if (this.#options.completeOAuthOnReady !== false && !inPopup && href && (await this.#auth.hasOAuthAnswer(href))) {
        await this.#auth.completeOAuthRedirect(href);
      }
    })();
    return this.#ready;
  }

  #currentWalletAdapter(): WalletAdapter | undefined {
    const id = this.#session.info()?.walletAdapterId;
    if (!id) return undefined;
    if (this.#walletAdapter?.id === id) return this.#walletAdapter;
    return this.#options.walletAdapters?.find((a) => a.id === id);
  }

  /** Stops timers and listeners; the session stays saved for the next page load. */
  destroy(): void {
    this.#session.stop();
    this.#ready = undefined;
  }

  // ---- state machines (subscribe replays the current state) ----
  get auth(): Readable<AuthState> {
    return this.#auth.state;
  }
  get balances() {
    return this.#data.balances;
  }
  get history() {
    return this.#data.history;
  }
  get transaction() {
    return this.#data.transaction;
  }
  /** The current session, if signed in (never the tokens). */
  get session(): SessionInfo | undefined {
    return this.#session.info();
  }

  // ---- sign-in flows ----
  beginEmailLogin = () => this.#auth.beginEmailLogin();
  sendEmailCode = (email: string) => this.#auth.sendEmailCode(email);
  verifyEmailCode = (code: string) => this.#auth.verifyEmailCode(code);
  loginWithOAuth = (options: OAuthOptions) => this.#auth.loginWithOAuth(options);
  /** Signs in with the user's own Stellar wallet (SEP-10); its transactions are then signed by `wallet`. */
  loginWithWallet = (wallet: WalletAdapter) => {
    this.#walletAdapter = wallet;
    return this.#auth.loginWithWallet(wallet);
  };
  completeOAuthRedirect = (url?: string) => this.#auth.completeOAuthRedirect(url);
  cancelLogin = () => this.#auth.cancelLogin();

  // ---- the session ----
  /** Renews the tokens now (they are renewed by themselves before expiry). False when the session ended. */
  refreshSession = () => this.#session.refresh();
  logout = (options?: { everywhere?: boolean }) => this.#auth.logout(options);
  /** The user's sessions on every device (`current` marks this one). */
  listSessions = () => this.api.listSessions();
  /** Revokes one session; revoking this device's own signs it out here too. */
  revokeSession = async (sessionId: string) => {
    const out = await this.api.revokeSession({ path: { sessionId } });
    if (out.ok && sessionId === this.#session.info()?.sessionId) await this.#session.end('SIGNED_OUT');
    return out;
  };

  // ---- wallet, balances, history, transactions ----
  getWallet = () => this.#data.getWallet();
  refreshBalances = () => this.#data.refreshBalances();
  loadHistory: DataStores['loadHistory'] = (params) => this.#data.loadHistory(params);
  buildTx: DataStores['buildTx'] = (input, options) => this.#data.buildTx(input, options);
  signTx: DataStores['signTx'] = (tx) => this.#data.signTx(tx);
  submitTx: DataStores['submitTx'] = (signedXdr, options) => this.#data.submitTx(signedXdr, options);
  signAndSubmitTx: DataStores['signAndSubmitTx'] = (tx, options) => this.#data.signAndSubmitTx(tx, options);
  runTx: DataStores['runTx'] = (input, options) => this.#data.runTx(input, options);
  waitForTx: DataStores['waitForTx'] = (hash, options) => this.#data.waitForTx(hash, options);
  resetTransaction = () => this.#data.resetTransaction();
}

/** Creates the client; call `ready()` before the first flow step. */
export function createOnboard(options: OnboardOptions): Onboard {
  return new Onboard(options);
}
