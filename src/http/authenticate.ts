// The gate: evaluates an operation's security requirements in a fixed order (API key, then session, then DPoP
// proof) so that the first failure gives the spec's code. One check per security scheme of the contract; the map is
// typed by the generated scheme names, so a scheme added to the spec without a check fails the build.
//
// API keys are looked up: unknown or revoked -> API_KEY_NOT_FOUND, expired -> API_KEY_EXPIRED, archived or missing
// app -> APPLICATION_NOT_FOUND, wrong type for the route -> API_KEY_TYPE_NOT_ALLOWED, a browser Origin not in the
// app's list -> ORIGIN_NOT_ALLOWED.
// Sessions: `Authorization: DPoP <access token>`; the token's signature, audience (Dashboard or SDK) and expiry
// (SDK_AUTH_INVALID_TOKEN / SDK_AUTH_TOKEN_EXPIRED), then its session must be live (sign-out ends tokens at once);
// an end-user token must belong to the key's app. A missing token answers INVALID_CREDENTIALS on the Dashboard and
// SDK_AUTH_INVALID_TOKEN on the SDK API. Keys and live sessions come from in-process caches that every process's
// triggers keep exact (domain/apiKeys/keyCache.ts, domain/sessions/sessionCache.ts): a revocation or sign-out in any
// process refuses the next request everywhere. Both caches wait for the change feed before they trust an entry; a
// request waits once, from the moment it enters the gate, so that wait runs beside the token and proof checks and a
// DPoP proof's jti insert instead of after them (and an SDK request's key and session share it). DPoP proofs (domain/sessions/dpop.ts): missing -> SDK_AUTH_DPOP_REQUIRED,
// invalid or signed by another key than the token's -> SDK_AUTH_DPOP_INVALID, no fresh nonce ->
// SDK_AUTH_DPOP_USE_NONCE. A replayed proof (its jti recorded before) -> SDK_AUTH_DPOP_INVALID: for an operation
// that writes nothing (x-read-only), authenticate resolves while the record is still in flight and hands it back
// (Authenticated.proofRecorded), so that its round trip runs beside the handler's reads; the router answers only once
// it is settled, and a replay's refusal then replaces whatever the handler found.
import type { IncomingHttpHeaders } from 'node:http';
import type { SecuritySchemeName } from '../../generated/server/catalogue.gen';
import type { Deps } from '../domain/deps';
import { hashApiKey, touchApiKey } from '../domain/apiKeys/apiKeys';
import { createKeyCache } from '../domain/apiKeys/keyCache';
import { createSessionCache } from '../domain/sessions/sessionCache';
import { parseApiKey, type ApiKeyType } from '../domain/apiKeys/keyFormat';
import { normalizeOrigin } from '../domain/apps/store';
import { createDpopVerifier } from '../domain/sessions/dpop';
import { sessionServiceFor } from '../domain/sessions/sessions';
import { AppError } from '../domain/errors';
import { runInBackground } from '../domain/background';
import { feedCaughtUp } from '../infra/db/notifiedCache';
import type { AuthContext } from '../operations/caller';
import type { Audience } from '../domain/sessions/accessTokens';

/** What the gate needs of a request. */
export interface GateRequest {
  method: string;
  /** The URL as the client addressed it, for DPoP `htu` (scheme, host, path). */
  url: string;
  headers: IncomingHttpHeaders;
  /**
   * Told as soon as a browser's Origin is found allowed for the key's app, before the later checks: the answers of
   * those checks (a DPoP nonce to use, an expired token) must be readable by that page too, or a browser client
   * could never follow them.
   */
  onOriginAllowed?: (origin: string) => void;
  /**
   * The operation writes nothing (`x-read-only` in the contract): its DPoP proof's first use may still be being
   * recorded when authenticate resolves (see Authenticated.proofRecorded).
   */
  readOnly?: boolean;
}

export interface Authenticated {
  auth: AuthContext;
  /**
   * Resolves once the request's DPoP proof is recorded as used for the first time; rejects with the refusal of a
   * replay. Already settled unless the request is readOnly: then the handler may run meanwhile, and the caller must
   * wait for it before it answers anything (a replay is refused, whatever the handler found).
   */
  proofRecorded: Promise<void>;
}

export interface Gate {
  authenticate(requirements: readonly (readonly string[])[], request: GateRequest): Promise<Authenticated>;
  /** The DPoP nonce clients should use now (sent as `DPoP-Nonce` on every answer of a DPoP operation). */
  dpopNonce(): string;
}

/** What the checks of one requirement share. */
interface Attempt {
  /** The request's wait for the change feed, started as it entered the gate: the caches trust what they hold once it resolves true. */
  caughtUp: Promise<boolean>;
  /** The DPoP proof's first use being recorded, when the dpopProof check left it pending (a readOnly request). */
  proofRecorded?: Promise<void>;
}

/** One requirement's check. */
type SchemeCheck = (request: GateRequest, auth: AuthContext, attempt: Attempt) => void | Promise<void>;

const DPOP_ALGORITHMS = 'EdDSA ES256';

/** last_used_at is written at most this often per key (and never awaited), so the gate adds no write per request. */
const TOUCH_INTERVAL_MS = 60_000;

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

// Keys before sessions before proofs: the key names the app a session must belong to.
const ORDER: SecuritySchemeName[] = ['secretKey', 'publishableKey', 'operatorSession', 'userSession', 'dpopProof'];

/** The gate, bound to the database (key and session lookups), the service secret (tokens, nonces) and the clock. */
export function createGate(
  deps: Pick<Deps, 'db' | 'clock' | 'log' | 'secrets' | 'sessionSettings' | 'background' | 'changes'>,
): Gate {
  const lastTouched = new Map<string, number>();
  const keys = createKeyCache(deps.db, deps.changes);
  const liveSessions = createSessionCache(deps.db, deps.changes);
  const sessions = sessionServiceFor(deps);
  const dpop = createDpopVerifier(deps.db, deps.secrets, deps.changes);

  function touch(keyId: string, now: Date): void {
    const last = lastTouched.get(keyId);
    if (last !== undefined && now.getTime() - last < TOUCH_INTERVAL_MS) return;
    lastTouched.set(keyId, now.getTime());
    void runInBackground(
      deps,
      () => touchApiKey(deps.db, keyId, now),
      (err) => deps.log.warn({ err, keyId }, 'could not record API key use'),
    );
  }

  function requireKeyOfType(type: ApiKeyType): SchemeCheck {
    return async ({ headers, onOriginAllowed }, auth, { caughtUp }) => {
      // 1. form: present and of the spec's shape (no database work for garbage)
      const raw = header(headers, 'x-service-api-key');
      if (!raw) throw new AppError('INVALID_CREDENTIALS', { message: 'Missing x-service-api-key header' });
      const presented = parseApiKey(raw);
      if (!presented) throw new AppError('INVALID_CREDENTIALS', { message: 'Malformed API key' });
      // 2. lookup by hash (the process's key cache, exact on revocation): unknown or revoked, then expired
      const now = deps.clock.now();
      const found = await keys.find(hashApiKey(presented.raw), now.getTime(), caughtUp);
      if (!found || found.key.revokedAt)
        throw new AppError('API_KEY_NOT_FOUND', { message: 'The API key does not exist or was revoked' });
      if (found.key.expiresAt && found.key.expiresAt.getTime() <= now.getTime()) {
        throw new AppError('API_KEY_EXPIRED', { message: 'The API key expired' });
      }
      // 3. the app behind the key
      if (!found.app || found.app.status !== 'active')
        throw new AppError('APPLICATION_NOT_FOUND', { message: 'No active application for this key' });
      // 4. the key's type against the route's
      if (found.key.type !== type) {
        throw new AppError('API_KEY_TYPE_NOT_ALLOWED', {
          message:
            type === 'secret'
              ? 'This route needs a secret key (Server API)'
              : 'This route needs a publishable key (SDK API)',
        });
      }
      // 5. browser requests: the Origin must be one of the app's
      const origin = header(headers, 'origin');
      if (origin !== undefined) {
        const normalized = normalizeOrigin(origin);
        if (!normalized || !found.origins.includes(normalized)) {
          throw new AppError('ORIGIN_NOT_ALLOWED', {
            message: 'This origin is not allowed for the app (add it under Build, Domains)',
          });
        }
        onOriginAllowed?.(origin);
      }
      touch(found.key.id, now);
      // The prefix fixes the network; the stored network always agrees (it was minted from the same prefix).
      auth.apiKey = { appId: found.key.appId, keyId: found.key.id, type: found.key.type, network: presented.network };
    };
  }

  function requireSession(audience: Audience): SchemeCheck {
    return async ({ headers }, auth) => {
      // 1. form: `Authorization: DPoP <token>` (a Bearer token is refused: these tokens are sender-constrained)
      const value = header(headers, 'authorization');
      const match = value?.match(/^DPoP ([A-Za-z0-9\-._~+/]+=*)$/);
      if (!match) {
        throw new AppError(audience === 'operator' && !value ? 'INVALID_CREDENTIALS' : 'SDK_AUTH_INVALID_TOKEN', {
          message: value
            ? 'Authorization must use the DPoP scheme: "DPoP <access token>"'
            : 'Missing Authorization header',
          headers: { 'WWW-Authenticate': `DPoP algs="${DPOP_ALGORITHMS}"` },
        });
      }
      // 2. the token: signature, audience, expiry (its session's liveness is checked once the proof is verified)
      const claims = await sessions.tokens.verify(match[1]!, audience, deps.clock.now());
      auth.sessionToCheck = { sessionId: claims.sessionId, audience, subjectId: claims.subjectId };
      if (audience === 'user') {
        if (!auth.apiKey || claims.appId !== auth.apiKey.appId) {
          throw new AppError('SDK_AUTH_INVALID_TOKEN', { message: 'The access token is not valid for this app' });
        }
        auth.user = { userId: claims.subjectId, sessionId: claims.sessionId, appId: claims.appId };
      } else {
        auth.operator = { operatorId: claims.subjectId, sessionId: claims.sessionId };
      }
      auth.accessToken = match[1]!;
      auth.tokenJkt = claims.jkt;
    };
  }

  const dpopProof: SchemeCheck = async ({ method, url, headers, readOnly }, auth, attempt) => {
    const proof = header(headers, 'dpop');
    if (!proof)
      throw new AppError('SDK_AUTH_DPOP_REQUIRED', {
        message: 'Missing DPoP proof header',
        headers: { 'WWW-Authenticate': `DPoP algs="${DPOP_ALGORITHMS}"` },
      });
    const { jkt, recorded } = await dpop.verifyAhead({
      proof,
      method,
      url,
      now: deps.clock.now(),
      ...(auth.accessToken ? { accessToken: auth.accessToken } : {}),
    });
    // A replay is refused as such before any later refusal (the error of the first check that fails is the answer).
    if (readOnly) attempt.proofRecorded = recorded;
    else await recorded;
    if (auth.tokenJkt && auth.tokenJkt !== jkt) {
      await recorded;
      throw new AppError('SDK_AUTH_DPOP_INVALID', {
        message: 'The DPoP proof is signed by another key than the access token is bound to',
        headers: { 'WWW-Authenticate': 'DPoP error="invalid_dpop_proof"' },
      });
    }
    auth.dpopJkt = jkt;
  };

  const checks: Record<SecuritySchemeName, SchemeCheck> = {
    secretKey: requireKeyOfType('secret'),
    publishableKey: requireKeyOfType('publishable'),
    userSession: requireSession('user'),
    operatorSession: requireSession('operator'),
    dpopProof,
  };

  /**
   * Returns the auth context of the first satisfied requirement, or throws the first requirement's error.
   * `requirements` is the operation's list of alternatives, each a list of scheme names that must all pass.
   */
  async function authenticate(
    requirements: readonly (readonly string[])[],
    request: GateRequest,
  ): Promise<Authenticated> {
    if (requirements.length === 0) return { auth: {}, proofRecorded: Promise.resolve() };
    // Started now, after the request arrived: every change answered before it is heard by the time this resolves.
    const caughtUp = feedCaughtUp(deps.changes);
    let firstError: unknown;
    for (const requirement of requirements) {
      const auth: AuthContext = {};
      const attempt: Attempt = { caughtUp };
      try {
        const schemes = [...requirement].sort(
          (a, b) => ORDER.indexOf(a as SecuritySchemeName) - ORDER.indexOf(b as SecuritySchemeName),
        );
        for (const scheme of schemes) await checks[scheme as SecuritySchemeName](request, auth, attempt);
        // Last, the session must be live (sign-out ends its tokens at once). After the proof, so that a replayed proof
        // is refused as such even when its first use ended the session.
        if (auth.sessionToCheck) {
          const { sessionId, audience, subjectId } = auth.sessionToCheck;
          try {
            await liveSessions.requireLive(sessionId, audience, subjectId, deps.clock.now().getTime(), caughtUp);
          } catch (err) {
            await attempt.proofRecorded;
            throw err;
          }
          delete auth.sessionToCheck;
        }
        return { auth, proofRecorded: attempt.proofRecorded ?? Promise.resolve() };
      } catch (err) {
        firstError ??= err;
      }
    }
    throw firstError;
  }

  return { authenticate, dpopNonce: () => dpop.currentNonce(deps.clock.now()) };
}
