// Sign-in flows and the auth state machine. Each flow is a few steps the app calls from its UI; the state (`step`)
// says where the user is, and every failure is a state `{ step: 'error', errorCode, message }` with an
// AUTH_ERROR_CODES code. Calling a step the current state does not allow (verifying a code before one was sent,
// starting a flow while signed in) throws FlowError INVALID_FLOW: a bug in the app, not a user's mistake.
//
//   idle ──beginEmailLogin──> entering_email ──sendEmailCode──> sending_email ──> entering_code
//   entering_code ──verifyEmailCode──> verifying_email_code ──> authenticated | error
//   idle ──loginWithOAuth──> opening_oauth ──> awaiting_oauth ──(back from the provider)──> completing_oauth
//        ──> authenticated | error
//   idle ──loginWithWallet──> connecting_wallet ──> signing_wallet_challenge ──> authenticating_wallet
//        ──> authenticated | error
//   authenticated ──logout / session ended / other tab signed out──> idle { reason }
//
// A later step of a flow that was cancelled or replaced never changes the state (each flow has a generation).
import type { SdkSignInResult } from '../../../generated/client/types.gen.js';
import { authCodeOf, FlowError, messageOf, type AuthErrorCode } from './errors.js';
import type { Failure, Outcome } from './outcome.js';
import type { SessionInfo, UserSessionManager } from './userSession.js';
import type { StorageAdapter } from './storage.js';
import type { WalletAdapter } from './walletAdapter.js';
import { createStore, type Readable } from './store.js';
import type { OnboardClient } from './types.js';

export type OAuthProvider = 'google' | 'github';

export type AuthState =
  | { step: 'restoring' }
  | { step: 'idle'; reason?: AuthErrorCode }
  | { step: 'entering_email' }
  | { step: 'sending_email'; email: string }
  | { step: 'entering_code'; email: string; codeExpiresAt: Date; resendAvailableAt: Date }
  | { step: 'verifying_email_code'; email: string }
  | { step: 'opening_oauth'; provider: OAuthProvider }
  | { step: 'awaiting_oauth'; provider: OAuthProvider }
  | { step: 'completing_oauth'; provider: OAuthProvider }
  | { step: 'connecting_wallet'; wallet: string }
  | { step: 'signing_wallet_challenge'; wallet: string; address: string }
  | { step: 'authenticating_wallet'; wallet: string; address: string }
  | { step: 'authenticated'; session: SessionInfo }
  | { step: 'signing_out' }
  | {
      step: 'error';
      /** The step that failed (e.g. `verifying_email_code`). */
      previousStep: string;
      /** Which flow it was in: the flow's next step may be retried from here. */
      flow: SignInFlow | 'session';
      errorCode: AuthErrorCode;
      message: string;
      /** The service's own code, when it answered. */
      apiCode?: string;
    };

export type AuthStep = AuthState['step'];

/** The sign-in flows; an error state names the one it happened in (or `session`). */
export type SignInFlow = 'email' | 'oauth' | 'wallet';

export interface OAuthOptions {
  provider: OAuthProvider;
  /** Where the provider sends the user back: one of the app's redirect URIs (dashboard, Domains), exactly. */
  redirectUri: string;
  /**
   * `popup` (browsers; call from a click so the popup is not blocked) keeps this page and watches the popup come back
   * to `redirectUri`; `redirect` leaves the page (or hands the URL to `openUrl` outside browsers) and the page at
   * `redirectUri` finishes with `completeOAuthRedirect()` (`ready()` does it by itself).
   */
  mode?: 'popup' | 'redirect';
}

interface PendingOAuth {
  provider: OAuthProvider;
  state: string;
  codeVerifier: string;
  redirectUri: string;
  expiresAt: number;
}

/** The window name of the sign-in popup (a page loaded in it leaves the flow to the page that opened it). */
export const POPUP_NAME = 'onboard-oauth';

/** How long a popup sign-in may take before it is abandoned. */
export const LOGIN_TIMEOUT_MS = 5 * 60_000;
const POPUP_POLL_MS = 250;

const FLOW_IDLE: ReadonlySet<AuthStep> = new Set(['idle', 'error', 'entering_email', 'entering_code']);

/** A duration from the service's answer, or `fallback` when the answer has none (never an Invalid Date in a state). */
function secondsOf(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fallback;
}

/** The query of `url`; undefined when it is not a URL (it is then no answer of a provider). */
function paramsOf(url: string): URLSearchParams | undefined {
  try {
    return new URL(url).searchParams;
  } catch {
    return undefined;
  }
}

function reasonOf(err: unknown): string {
  return err instanceof Error && err.message ? err.message : 'The wallet did not answer';
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** RFC 7636: a 43-character verifier and its S256 challenge. */
export async function createPkce(): Promise<{ codeVerifier: string; codeChallenge: string }> {
  const codeVerifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(codeVerifier));
  return { codeVerifier, codeChallenge: base64url(new Uint8Array(digest)) };
}

export interface AuthFlowDeps {
  /** The API without the session's access token (sign-in calls carry only a DPoP proof). */
  api: OnboardClient;
  /** The API with the session's access token (sign-out). */
  sessionApi: OnboardClient;
  session: UserSessionManager;
  storage: StorageAdapter;
  /** Storage key of a pending OAuth sign-in. */
  oauthKey: string;
  /** Opens the provider's page in redirect mode (default: this page goes there). */
  openUrl?: (url: string) => void;
}

export class AuthFlows {
  readonly #store = createStore<AuthState>({ step: 'restoring' });
  readonly #deps: AuthFlowDeps;
  #generation = 0;
  #email: { address: string; sent: boolean } | undefined;
  #popupWatch: { cancel(): void } | undefined;

  constructor(deps: AuthFlowDeps) {
    this.#deps = deps;
  }

  get state(): Readable<AuthState> {
    return this.#store;
  }

  /** The session changed underneath (restored, refreshed, ended, another tab): the state follows. */
  sessionChanged(info: SessionInfo | undefined, reason?: AuthErrorCode): void {
    const step = this.#store.get().step;
    if (info) {
      this.#generation++;
      this.#store.set({ step: 'authenticated', session: info });
    } else if (step === 'authenticated' || step === 'restoring' || step === 'signing_out') {
      this.#store.set(reason ? { step: 'idle', reason } : { step: 'idle' });
    }
  }

  /** ready() is done and nothing was restored. */
  restored(): void {
    if (this.#store.get().step === 'restoring') this.#store.set({ step: 'idle' });
  }

  #require(allowed: (state: AuthState) => boolean, action: string): AuthState {
    const state = this.#store.get();
    if (!allowed(state)) throw new FlowError(`${action} is not allowed in step '${state.step}'`);
    return state;
  }

  /** A new flow step: later answers of older steps are dropped. */
  #begin(next: AuthState): number {
    this.#cancelPopup();
    this.#store.set(next);
    return ++this.#generation;
  }

  #fail(generation: number, previousStep: string, flow: SignInFlow, failure: Failure, fallback: AuthErrorCode) {
    if (generation !== this.#generation) return;
    this.#store.set({
      step: 'error',
      previousStep,
      flow,
      errorCode: authCodeOf(failure, fallback),
      message: messageOf(failure),
      apiCode: failure.code,
    });
  }

  #failWith(generation: number, previousStep: string, flow: SignInFlow, errorCode: AuthErrorCode, message: string) {
    if (generation !== this.#generation) return;
    this.#store.set({ step: 'error', previousStep, flow, errorCode, message });
  }

  async #signedIn(generation: number, result: SdkSignInResult, wallet?: WalletAdapter): Promise<void> {
    if (generation !== this.#generation) return;
    this.#email = undefined;
    // sessionChanged moves the state to authenticated
    await this.#deps.session.establish(result.tokens, {
      user: result.user,
      wallet: result.wallet,
      ...(wallet ? { walletAdapterId: wallet.id } : {}),
    });
  }

  // ---- email code ----

  /** Starts the email flow (also from a failed or finished step of it: to change the address). */
  beginEmailLogin(): void {
    this.#require((s) => FLOW_IDLE.has(s.step), 'beginEmailLogin');
    this.#email = undefined;
    this.#begin({ step: 'entering_email' });
  }

  /** Sends a code to `email` (again, to resend). The state moves to entering_code, or error. */
  async sendEmailCode(email: string): Promise<void> {
    this.#require(
      (s) => s.step === 'entering_email' || s.step === 'entering_code' || (s.step === 'error' && s.flow === 'email'),
      'sendEmailCode',
    );
    const address = email.trim();
    const generation = this.#begin({ step: 'sending_email', email: address });
    const out = await this.#deps.api.startEmailSignIn({ body: { email: address } });
    if (generation !== this.#generation) return;
    if (!out.ok) {
      this.#email = undefined;
      this.#fail(generation, 'sending_email', 'email', out, 'EMAIL_SEND_FAILED');
      return;
    }
    this.#email = { address, sent: true };
    const now = Date.now();
    this.#store.set({
      step: 'entering_code',
      email: address,
      codeExpiresAt: new Date(now + secondsOf(out.content.expiresInSeconds, 600) * 1000),
      resendAvailableAt: new Date(now + secondsOf(out.content.resendAfterSeconds, 0) * 1000),
    });
  }

  /** Verifies the code sent to the address; the state moves to authenticated, or error (retry with another code). */
  async verifyEmailCode(code: string): Promise<void> {
    this.#require(
      (s) => (s.step === 'entering_code' || (s.step === 'error' && s.flow === 'email')) && this.#email?.sent === true,
      'verifyEmailCode',
    );
    const email = this.#email!.address;
    const generation = this.#begin({ step: 'verifying_email_code', email });
    const out = await this.#deps.api.verifyEmailSignIn({ body: { email, code: code.trim() } });
    if (!out.ok) return this.#fail(generation, 'verifying_email_code', 'email', out, 'EMAIL_VERIFY_FAILED');
    await this.#signedIn(generation, out.content);
  }

  // ---- the user's own Stellar wallet (SEP-10) ----

  /**
   * Signs in with the user's own Stellar wallet: the wallet names its account, signs the service's SEP-10 challenge,
   * and the session's wallet is then that account (`custody: 'external'`); its transactions are signed by the same
   * adapter (give it again in `walletAdapters` so a reload can find it). The app must have turned this method on.
   */
  async loginWithWallet(wallet: WalletAdapter): Promise<void> {
    this.#require((s) => FLOW_IDLE.has(s.step), 'loginWithWallet');
    const generation = this.#begin({ step: 'connecting_wallet', wallet: wallet.id });
    let address: string;
    try {
      address = await wallet.getAddress();
    } catch (err) {
      return this.#failWith(generation, 'connecting_wallet', 'wallet', 'WALLET_CONNECT_FAILED', reasonOf(err));
    }
    if (generation !== this.#generation) return;
    const challenge = await this.#deps.api.createWalletSignInChallenge({ query: { account: address } });
    if (!challenge.ok) return this.#fail(generation, 'connecting_wallet', 'wallet', challenge, 'WALLET_CONNECT_FAILED');
    if (generation !== this.#generation) return;
    this.#store.set({ step: 'signing_wallet_challenge', wallet: wallet.id, address });
    let signed: string;
    try {
      signed = await wallet.signTransaction(challenge.content.transaction, {
        networkPassphrase: challenge.content.networkPassphrase,
        address,
      });
    } catch (err) {
      return this.#failWith(generation, 'signing_wallet_challenge', 'wallet', 'WALLET_AUTH_FAILED', reasonOf(err));
    }
    if (generation !== this.#generation) return;
    this.#store.set({ step: 'authenticating_wallet', wallet: wallet.id, address });
    const out = await this.#deps.api.verifyWalletSignIn({ body: { transaction: signed } });
    if (!out.ok) return this.#fail(generation, 'authenticating_wallet', 'wallet', out, 'WALLET_AUTH_FAILED');
    await this.#signedIn(generation, out.content, wallet);
  }

  // ---- Google and GitHub ----

  /**
   * Signs in with an identity provider (PKCE and state handled here). In popup mode, call it from a click handler:
   * the popup is opened before anything is awaited, as browsers require.
   */
  async loginWithOAuth(options: OAuthOptions): Promise<void> {
    this.#require((s) => FLOW_IDLE.has(s.step), 'loginWithOAuth');
    const { provider, redirectUri } = options;
    const mode = options.mode ?? 'redirect';
    const popup =
      mode === 'popup' ? globalThis.open?.('about:blank', POPUP_NAME, 'popup,width=500,height=680') : undefined;
    const generation = this.#begin({ step: 'opening_oauth', provider });
    if (mode === 'popup' && !popup) {
      return this.#failWith(
        generation,
        'opening_oauth',
        'oauth',
        'POPUP_BLOCKED',
        'The browser blocked the sign-in window',
      );
    }
    const pkce = await createPkce();
    const out = await this.#deps.api.startOAuthSignIn({
      path: { provider },
      query: { redirectUri, codeChallenge: pkce.codeChallenge },
    });
    if (generation !== this.#generation) return popup?.close();
    if (!out.ok) {
      popup?.close();
      return this.#fail(generation, 'opening_oauth', 'oauth', out, 'EXTERNAL_AUTH_FAILED');
    }
    const pending: PendingOAuth = {
      provider,
      state: out.content.state,
      codeVerifier: pkce.codeVerifier,
      redirectUri,
      expiresAt: Date.parse(out.content.expiresAt),
    };
    await this.#deps.storage.set(this.#deps.oauthKey, JSON.stringify(pending));
    this.#store.set({ step: 'awaiting_oauth', provider });
    if (popup) {
      popup.location.href = out.content.authorizationUrl;
      this.#watchPopup(popup, pending, generation);
      return;
    }
    const open = this.#deps.openUrl ?? ((url: string) => globalThis.location.assign(url));
    open(out.content.authorizationUrl);
  }

  /** Is `url` the provider's answer to a sign-in this device started (a redirect back to this page)? */
  async hasOAuthAnswer(url: string): Promise<boolean> {
    const pending = await this.#pendingOAuth();
    if (!pending) return false;
    return paramsOf(url)?.get('state') === pending.state;
  }

  /**
   * Finishes a sign-in at the page the provider sent the user back to (`url`, default this page's address). Throws
   * INVALID_FLOW when this device started no such sign-in.
   */
  async completeOAuthRedirect(url: string = globalThis.location?.href ?? ''): Promise<void> {
    const pending = await this.#pendingOAuth();
    const params = paramsOf(url);
    if (!pending || !params || params.get('state') !== pending.state) {
      throw new FlowError('completeOAuthRedirect: no sign-in with this state was started on this device');
    }
    this.#require((s) => s.step !== 'authenticated' && s.step !== 'signing_out', 'completeOAuthRedirect');
    await this.#deps.storage.remove(this.#deps.oauthKey);
    const generation = this.#begin({ step: 'completing_oauth', provider: pending.provider });
    const code = params.get('code');
    if (params.get('error') || !code) {
      const cancelled = params.get('error') === 'access_denied';
      return this.#failWith(
        generation,
        'completing_oauth',
        'oauth',
        cancelled ? 'OAUTH_CANCELLED' : 'EXTERNAL_AUTH_FAILED',
        params.get('error_description') ?? (cancelled ? 'Sign-in was cancelled' : 'The provider did not sign you in'),
      );
    }
    if (pending.expiresAt <= Date.now()) {
      return this.#failWith(
        generation,
        'completing_oauth',
        'oauth',
        'EXTERNAL_AUTH_FAILED',
        'The sign-in took too long; start again',
      );
    }
    const out = await this.#deps.api.completeOAuthSignIn({
      path: { provider: pending.provider },
      body: { code, state: pending.state, redirectUri: pending.redirectUri, codeVerifier: pending.codeVerifier },
    });
    if (!out.ok) return this.#fail(generation, 'completing_oauth', 'oauth', out, 'EXTERNAL_AUTH_FAILED');
    await this.#signedIn(generation, out.content);
  }

  async #pendingOAuth(): Promise<PendingOAuth | undefined> {
    const text = await this.#deps.storage.get(this.#deps.oauthKey);
    if (!text) return undefined;
    try {
      const value = JSON.parse(text) as PendingOAuth;
      return typeof value.state === 'string' && typeof value.codeVerifier === 'string' ? value : undefined;
    } catch {
      return undefined;
    }
  }

  #watchPopup(popup: Window, pending: PendingOAuth, generation: number): void {
    const deadline = Date.now() + LOGIN_TIMEOUT_MS;
    const target = new URL(pending.redirectUri);
    const timer = setInterval(() => {
      if (generation !== this.#generation) return this.#cancelPopup();
      if (popup.closed) {
        this.#cancelPopup();
        return this.#failWith(
          generation,
          'awaiting_oauth',
          'oauth',
          'OAUTH_CANCELLED',
          'The sign-in window was closed',
        );
      }
      if (Date.now() > deadline) {
        this.#cancelPopup();
        popup.close();
        return this.#failWith(generation, 'awaiting_oauth', 'oauth', 'LOGIN_TIMEOUT', 'The sign-in took too long');
      }
      let href: string;
      try {
        href = popup.location.href; // readable once the popup is back on this origin
      } catch {
        return; // still at the provider (another origin)
      }
      const at = new URL(href);
      if (at.origin !== target.origin || at.pathname !== target.pathname || !at.searchParams.has('state')) return;
      this.#cancelPopup();
      popup.close();
      // A flow finished meanwhile (another tab, a reload of the popup's page) is not an error of this page.
      this.completeOAuthRedirect(href).catch((err: unknown) => {
        if (!(err instanceof FlowError)) throw err;
      });
    }, POPUP_POLL_MS);
    this.#popupWatch = { cancel: () => clearInterval(timer) };
  }

  #cancelPopup(): void {
    this.#popupWatch?.cancel();
    this.#popupWatch = undefined;
  }

  /** Abandons the flow in progress (its late answers are ignored); back to idle. */
  cancelLogin(): void {
    const step = this.#store.get().step;
    if (step === 'authenticated' || step === 'signing_out' || step === 'restoring' || step === 'idle') return;
    this.#email = undefined;
    this.#begin({ step: 'idle' });
    void this.#deps.storage.remove(this.#deps.oauthKey);
  }

  // ---- the end of a session ----

  /**
   * Signs out (this session, or every session of the user with `everywhere`). The device forgets the session even
   * when the service cannot be reached; the outcome says whether the service revoked it. Outside a session: nothing
   * to do, `{ ok: true, revokedSessions: 0 }`.
   */
  async logout(
    options: { everywhere?: boolean } = {},
  ): Promise<Outcome<{ everywhere: boolean; revokedSessions: number }>> {
    const state = this.#store.get();
    if (state.step !== 'authenticated') {
      return { ok: true, status: 200, code: 'SDK_SIGNED_OUT', content: { everywhere: false, revokedSessions: 0 } };
    }
    this.#begin({ step: 'signing_out' });
    const out = await this.#deps.sessionApi.signOut({ body: { everywhere: options.everywhere ?? false } });
    await this.#deps.session.end('SIGNED_OUT');
    return out;
  }
}
