// The gate: evaluates an operation's security requirements in a fixed order (API key, then session, then DPoP
// proof) so that the first failure gives the spec's code. One check per security scheme of the contract; the map is
// typed by the generated scheme names, so a scheme added to the spec without a check fails the build.
//
// API keys are looked up (issue #4): unknown or revoked -> API_KEY_NOT_FOUND, expired -> API_KEY_EXPIRED, archived or
// missing app -> APPLICATION_NOT_FOUND, wrong type for the route -> API_KEY_TYPE_NOT_ALLOWED, a browser Origin not in
// the app's list -> ORIGIN_NOT_ALLOWED. Sessions and DPoP proofs are still checked for form only (issue #5); every
// operation that takes them answers 501 until then, so nothing is served on an unverified session.
import type { IncomingHttpHeaders } from 'node:http';
import type { SecuritySchemeName } from '../../generated/server/catalogue.gen';
import type { Deps } from '../deps';
import { findKeyForGate, touchApiKey } from '../domain/apiKeys/apiKeys';
import { parseApiKey, type ApiKeyNetwork, type ApiKeyType } from '../domain/apiKeys/keyFormat';
import { normalizeOrigin } from '../domain/apps/store';
import { AppError } from './errors';

/** The key a request was authenticated with; never holds the key itself. */
export interface AuthenticatedKey {
  appId: string;
  keyId: string;
  type: ApiKeyType;
  /** The network of the request, fixed by the key's prefix. */
  network: ApiKeyNetwork;
}

export interface AuthContext {
  /** The app key the request presented in x-service-api-key, looked up and checked. */
  apiKey?: AuthenticatedKey;
  /** The request's browser origin, present only when it is in the app's allowed origins (CORS echoes it). */
  allowedOrigin?: string;
  /** The raw access token from `Authorization: DPoP <token>` (form checked only until the sessions issue). */
  accessToken?: string;
  /** The raw DPoP proof JWT (form checked only until the sessions issue). */
  dpopProof?: string;
}

export type Authenticate = (requirements: readonly (readonly string[])[], headers: IncomingHttpHeaders) => Promise<AuthContext>;

type SchemeCheck = (headers: IncomingHttpHeaders, auth: AuthContext) => void | Promise<void>;

/** last_used_at is written at most this often per key (and never awaited), so the gate adds no write per request. */
const TOUCH_INTERVAL_MS = 60_000;

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function requireDpopToken(missingCode: 'SDK_AUTH_INVALID_TOKEN' | 'INVALID_CREDENTIALS'): SchemeCheck {
  return (headers, auth) => {
    const value = header(headers, 'authorization');
    const match = value?.match(/^DPoP ([A-Za-z0-9\-._~+/]+=*)$/);
    if (!match) {
      throw new AppError(missingCode, {
        message: value ? 'Authorization must use the DPoP scheme: "DPoP <access token>"' : 'Missing Authorization header',
        headers: { 'WWW-Authenticate': 'DPoP algs="ES256 EdDSA"' },
      });
    }
    auth.accessToken = match[1];
  };
}

const dpopProof: SchemeCheck = (headers, auth) => {
  const proof = header(headers, 'dpop');
  if (!proof) throw new AppError('SDK_AUTH_DPOP_REQUIRED', { message: 'Missing DPoP proof header' });
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(proof)) {
    throw new AppError('SDK_AUTH_DPOP_INVALID', { message: 'The DPoP proof is not a compact JWS' });
  }
  auth.dpopProof = proof;
};

// Keys before sessions before proofs: the key names the app a session must belong to.
const ORDER: SecuritySchemeName[] = ['secretKey', 'publishableKey', 'operatorSession', 'userSession', 'dpopProof'];

/** The gate, bound to the database (key lookups) and the clock (expiry). */
export function createAuthenticator(deps: Pick<Deps, 'db' | 'clock' | 'log'>): Authenticate {
  const lastTouched = new Map<string, number>();

  function touch(keyId: string, now: Date): void {
    const last = lastTouched.get(keyId);
    if (last !== undefined && now.getTime() - last < TOUCH_INTERVAL_MS) return;
    lastTouched.set(keyId, now.getTime());
    touchApiKey(deps.db, keyId, now).catch((err: unknown) => deps.log.warn({ err, keyId }, 'could not record API key use'));
  }

  function requireKeyOfType(type: ApiKeyType): SchemeCheck {
    return async (headers, auth) => {
      // 1. form: present and of the spec's shape (no database work for garbage)
      const raw = header(headers, 'x-service-api-key');
      if (!raw) throw new AppError('INVALID_CREDENTIALS', { message: 'Missing x-service-api-key header' });
      const presented = parseApiKey(raw);
      if (!presented) throw new AppError('INVALID_CREDENTIALS', { message: 'Malformed API key' });
      // 2. lookup by hash: unknown or revoked, then expired
      const found = await findKeyForGate(deps.db, presented.raw);
      if (!found || found.key.revokedAt) throw new AppError('API_KEY_NOT_FOUND', { message: 'The API key does not exist or was revoked' });
      const now = deps.clock.now();
      if (found.key.expiresAt && found.key.expiresAt.getTime() <= now.getTime()) {
        throw new AppError('API_KEY_EXPIRED', { message: 'The API key expired' });
      }
      // 3. the app behind the key
      if (!found.app || found.app.status !== 'active') throw new AppError('APPLICATION_NOT_FOUND', { message: 'No active application for this key' });
      // 4. the key's type against the route's
      if (found.key.type !== type) {
        throw new AppError('API_KEY_TYPE_NOT_ALLOWED', {
          message: type === 'secret' ? 'This route needs a secret key (Server API)' : 'This route needs a publishable key (SDK API)',
        });
      }
      // 5. browser requests: the Origin must be one of the app's
      const origin = header(headers, 'origin');
      if (origin !== undefined) {
        const normalized = normalizeOrigin(origin);
        if (!normalized || !found.origins.includes(normalized)) {
          throw new AppError('ORIGIN_NOT_ALLOWED', { message: 'This origin is not allowed for the app (add it under Build, Domains)' });
        }
        auth.allowedOrigin = origin;
      }
      touch(found.key.id, now);
      // The prefix fixes the network; the stored network always agrees (it was minted from the same prefix).
      auth.apiKey = { appId: found.key.appId, keyId: found.key.id, type: found.key.type, network: presented.network };
    };
  }

  const checks: Record<SecuritySchemeName, SchemeCheck> = {
    secretKey: requireKeyOfType('secret'),
    publishableKey: requireKeyOfType('publishable'),
    userSession: requireDpopToken('SDK_AUTH_INVALID_TOKEN'),
    operatorSession: requireDpopToken('INVALID_CREDENTIALS'),
    dpopProof,
  };

  /**
   * Returns the auth context of the first satisfied requirement, or throws the first requirement's error.
   * `requirements` is the operation's list of alternatives, each a list of scheme names that must all pass.
   */
  return async (requirements, headers) => {
    if (requirements.length === 0) return {};
    let firstError: unknown;
    for (const requirement of requirements) {
      const auth: AuthContext = {};
      try {
        const schemes = [...requirement].sort((a, b) => ORDER.indexOf(a as SecuritySchemeName) - ORDER.indexOf(b as SecuritySchemeName));
        for (const scheme of schemes) await checks[scheme as SecuritySchemeName](headers, auth);
        return auth;
      } catch (err) {
        firstError ??= err;
      }
    }
    throw firstError;
  };
}
