// A session on this device: its tokens, the DPoP key they are bound to, and their renewal; for an end user
// (onboard.ts) or a Dashboard operator (operatorSession.ts), who is its principal.
//   - Persisted (storage.ts) so a reload keeps the user signed in; the key pair stays in the key store (keyStore.ts).
//   - Renewed before the access token expires (a timer at expiry - 60 s, paused while the page is hidden, and a check
//     before every request), one refresh at a time in this tab and across tabs (Web Locks): the refresh token is
//     single-use, so a second concurrent refresh would look like theft to the service and end the session.
//   - Ended locally when the service says it is over (refresh token expired, reused, revoked): the app sees the auth
//     state go to `idle` with reason SESSION_EXPIRED, never an exception.
//   - Followed across tabs: a sign-in, refresh or sign-out in one tab is picked up by the others.
import type { SessionTokens } from '../../../generated/client/types.gen.js';
import { createDpopSigner, type DpopSigner } from './dpop.js';
import { SESSION_ENDED_CODES, type AuthErrorCode } from './errors.js';
import type { DpopKeyStore } from './keyStore.js';
import type { Outcome } from './outcome.js';
import { withCrossTabLock, type StorageAdapter } from './storage.js';

/**
 * Who a session is for, kept beside its tokens: an end user with their wallet (onboard.ts), or a Dashboard operator
 * (operatorSession.ts). Its fields are stored flat beside the tokens, so they must not use the tokens' names.
 */
export type Principal = Record<string, unknown>;

/** What the app may know of a session (never the tokens): the principal's fields and the session's times. */
export type SessionState<P extends Principal> = P & {
  sessionId: string;
  /** When the access token expires (it is renewed before then). */
  accessTokenExpiresAt: Date;
  /** When the session ends unless used: the refresh token's expiry. */
  expiresAt: Date;
};

interface StoredTokens {
  v: 1;
  jkt: string;
  accessToken: string;
  refreshToken: string;
  sessionId: string;
  accessExpiresAt: number;
  refreshExpiresAt: number;
}
type StoredSession<P extends Principal> = StoredTokens & P;

const TOKEN_FIELDS = new Set<string>([
  'v',
  'jkt',
  'accessToken',
  'refreshToken',
  'sessionId',
  'accessExpiresAt',
  'refreshExpiresAt',
]);

/** The principal's part of a stored session. */
function principalOf<P extends Principal>(session: StoredSession<P>): P {
  return Object.fromEntries(Object.entries(session).filter(([key]) => !TOKEN_FIELDS.has(key))) as P;
}

/** Renew this long before the access token expires (or at half its lifetime when that is shorter). */
export const REFRESH_LEAD_MS = 60_000;
/** A request made this close to the access token's expiry refreshes first. */
const EXPIRY_MARGIN_MS = 5_000;

export interface SessionManagerDeps<P extends Principal> {
  storage: StorageAdapter;
  keyStore: DpopKeyStore;
  /** Storage key and lock name of this session (one per publishable key, or the Dashboard's). */
  name: string;
  /** The refresh operation, with a proof of the current key and no access token. */
  refresh(refreshToken: string): Promise<Outcome<SessionTokens>>;
  /** Checks the principal's fields of a stored session (storage is outside input: a record may be old or edited). */
  isPrincipal: (value: Record<string, unknown>) => boolean;
  /** Called after every change: a session, or none with the reason it ended. */
  onChange(info: SessionState<P> | undefined, reason?: AuthErrorCode): void;
  now?: () => number;
}

function parseStored<P extends Principal>(
  text: string | null,
  isPrincipal: (value: Record<string, unknown>) => boolean,
): StoredSession<P> | undefined {
  if (!text) return undefined;
  try {
    const value = JSON.parse(text) as Partial<StoredTokens> & Record<string, unknown>;
    const ok =
      value.v === 1 &&
      typeof value.jkt === 'string' &&
      typeof value.accessToken === 'string' &&
      typeof value.refreshToken === 'string' &&
      typeof value.sessionId === 'string' &&
      typeof value.accessExpiresAt === 'number' &&
      typeof value.refreshExpiresAt === 'number' &&
      isPrincipal(value);
    return ok ? (value as StoredSession<P>) : undefined;
  } catch {
    return undefined;
  }
}

export class SessionManager<P extends Principal> {
  #current: StoredSession<P> | undefined;
  #signer: DpopSigner | undefined;
  #refreshing: Promise<boolean> | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #unwatch: (() => void) | undefined;
  #onVisibility = () => this.#schedule();
  readonly #deps: SessionManagerDeps<P>;
  readonly #now: () => number;

  constructor(deps: SessionManagerDeps<P>) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  /** The device's signer, loaded from the key store or created (non-extractable) and saved. */
  async signer(): Promise<DpopSigner> {
    if (this.#signer) return this.#signer;
    this.#signer = await withCrossTabLock(`${this.#deps.name}:key`, async () => {
      const stored = await this.#deps.keyStore.load();
      if (stored) return createDpopSigner(stored);
      const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
      await this.#deps.keyStore.save(pair);
      return createDpopSigner(pair);
    });
    return this.#signer;
  }

  /** The signer already loaded (after start); proofs are made with it. */
  loadedSigner(): DpopSigner | undefined {
    return this.#signer;
  }

  /** Loads the device key and the persisted session, and starts following changes made by other tabs. */
  async start(): Promise<void> {
    await this.signer();
    this.#unwatch ??= this.#deps.storage.watch?.(this.#deps.name, () => void this.#syncFromStorage());
    globalThis.document?.addEventListener?.('visibilitychange', this.#onVisibility);
    await this.#syncFromStorage();
  }

  /** Stops timers and listeners (the session stays persisted). `start` may be called again. */
  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#unwatch?.();
    this.#unwatch = undefined;
    globalThis.document?.removeEventListener?.('visibilitychange', this.#onVisibility);
  }

  info(): SessionState<P> | undefined {
    return this.#current && this.#infoOf(this.#current);
  }

  accessToken(): string | undefined {
    return this.#current?.accessToken;
  }

  /** Keeps the tokens of a sign-in, bound to this device's key, for `principal`. */
  async establish(tokens: SessionTokens, principal: P): Promise<SessionState<P>> {
    const signer = await this.signer();
    const session = this.#withTokens(signer.jkt, principal, tokens);
    await this.#persist(session);
    this.#adopt(session);
    return this.#infoOf(session);
  }

  /** Replaces what the session knows of its principal (e.g. the wallet after getWallet); undefined keeps it. */
  async updatePrincipal(update: (current: P) => P | undefined): Promise<void> {
    if (!this.#current) return;
    const next = update(principalOf(this.#current));
    if (!next) return;
    const session: StoredSession<P> = { ...this.#tokensOf(this.#current), ...next };
    await this.#persist(session);
    this.#adopt(session);
  }

  /** Refreshes first when the access token is about to expire. */
  async ensureFresh(): Promise<void> {
    const current = this.#current;
    if (current && current.accessExpiresAt - this.#now() < EXPIRY_MARGIN_MS) await this.refresh();
  }

  /**
   * Renews the tokens (single flight in this tab, a lock across tabs). True when the session goes on; false when it
   * ended (then the state says why) or the service could not be reached (the session is kept for a later try).
   */
  refresh(): Promise<boolean> {
    this.#refreshing ??= this.#refreshOnce().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  async #refreshOnce(): Promise<boolean> {
    const before = this.#current;
    if (!before) return false;
    return withCrossTabLock(`${this.#deps.name}:refresh`, async () => {
      // Another tab may have refreshed while this one waited for the lock: its tokens are the live ones.
      const stored = parseStored<P>(await this.#deps.storage.get(this.#deps.name), this.#deps.isPrincipal);
      if (!stored || stored.sessionId !== before.sessionId) {
        await this.#syncFromStorage();
        return this.#current !== undefined;
      }
      if (stored.refreshToken !== before.refreshToken) {
        this.#adopt(stored);
        return true;
      }
      const out = await this.#deps.refresh(before.refreshToken);
      if (this.#current?.sessionId !== before.sessionId) return this.#current !== undefined; // signed out meanwhile
      if (out.ok) {
        const session = this.#withTokens(before.jkt, principalOf(before), out.content);
        await this.#persist(session);
        this.#adopt(session);
        return true;
      }
      if (SESSION_ENDED_CODES.has(out.code)) await this.end('SESSION_EXPIRED');
      return false;
    });
  }

  /** Forgets the session on this device (every tab follows) and rotates the device key for the next sign-in. */
  async end(reason: AuthErrorCode): Promise<void> {
    await this.#deps.storage.remove(this.#deps.name);
    await this.#deps.keyStore.clear();
    await this.#forget(reason);
  }

  /** Drops the session in memory and loads (or makes) the device's next key; tells the app when there was one. */
  async #forget(reason: AuthErrorCode): Promise<void> {
    const had = this.#current !== undefined;
    this.#current = undefined;
    clearTimeout(this.#timer);
    this.#signer = undefined;
    await this.signer();
    if (had) this.#deps.onChange(undefined, reason);
  }

  async #syncFromStorage(): Promise<void> {
    const stored = parseStored<P>(await this.#deps.storage.get(this.#deps.name), this.#deps.isPrincipal);
    // Another tab signed out (or the record was wiped): follow it without calling the service.
    if (!stored) {
      if (this.#current) await this.#forget('SIGNED_OUT');
      return;
    }
    if (stored.refreshExpiresAt <= this.#now()) {
      await this.end('SESSION_EXPIRED');
      return;
    }
    // A session made in another tab may use a key this tab has not loaded yet.
    let signer = await this.signer();
    if (signer.jkt !== stored.jkt) {
      this.#signer = undefined;
      signer = await this.signer();
    }
    if (signer.jkt !== stored.jkt) {
      // The tokens are bound to a key this device no longer has: they can never be used again.
      await this.end('SESSION_INVALID');
      return;
    }
    if (this.#current && JSON.stringify(this.#current) === JSON.stringify(stored)) return;
    this.#adopt(stored);
  }

  #adopt(session: StoredSession<P>): void {
    const changed =
      !this.#current ||
      this.#current.sessionId !== session.sessionId ||
      this.#current.accessExpiresAt !== session.accessExpiresAt ||
      JSON.stringify(principalOf(this.#current)) !== JSON.stringify(principalOf(session));
    this.#current = session;
    this.#schedule();
    if (changed) this.#deps.onChange(this.#infoOf(session));
  }

  #schedule(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const session = this.#current;
    if (!session) return;
    // A hidden page does not renew: the check before its next request (or the page becoming visible) does.
    if (globalThis.document?.visibilityState === 'hidden') return;
    const lifetime = session.accessExpiresAt - this.#now();
    const lead = Math.min(REFRESH_LEAD_MS, lifetime / 2);
    const delay = Math.max(0, lifetime - lead);
    this.#timer = setTimeout(() => void this.refresh(), delay);
    // A pending renewal never keeps a Node process alive.
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /** The session of `principal` with new tokens bound to the key `jkt`. */
  #withTokens(jkt: string, principal: P, tokens: SessionTokens): StoredSession<P> {
    return {
      ...principal,
      v: 1,
      jkt,
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken,
      sessionId: tokens.sessionId,
      accessExpiresAt: this.#now() + tokens.expiresIn * 1000,
      refreshExpiresAt: Date.parse(tokens.refreshTokenExpiresAt),
    };
  }

  #tokensOf(session: StoredSession<P>): StoredTokens {
    const { v, jkt, accessToken, refreshToken, sessionId, accessExpiresAt, refreshExpiresAt } = session;
    return { v, jkt, accessToken, refreshToken, sessionId, accessExpiresAt, refreshExpiresAt };
  }

  async #persist(session: StoredSession<P>): Promise<void> {
    await this.#deps.storage.set(this.#deps.name, JSON.stringify(session));
  }

  #infoOf(session: StoredSession<P>): SessionState<P> {
    return {
      ...principalOf(session),
      sessionId: session.sessionId,
      accessTokenExpiresAt: new Date(session.accessExpiresAt),
      expiresAt: new Date(session.refreshExpiresAt),
    };
  }
}
