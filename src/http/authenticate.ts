// The gate: evaluates an operation's security requirements in a fixed order (API key, then session, then DPoP
// proof) so that the first failure gives the spec's code. One check per security scheme of the contract; the map is
// typed by the generated scheme names, so a scheme added to the spec without a check fails the build.
//
// What is built so far: the form of each credential (presence, prefix, type, scheme). Looking keys up, verifying
// access tokens and DPoP proofs come with the keys and sessions issues; until then every operation that takes
// credentials answers 501, so nothing is served on an unverified credential.
import type { IncomingHttpHeaders } from 'node:http';
import type { SecuritySchemeName } from '../../generated/server/catalogue.gen';
import { parseApiKey, type PresentedApiKey } from '../domain/apiKeys/keyFormat';
import { AppError } from './errors';

export interface AuthContext {
  /** The API key presented in x-service-api-key (form checked; lookup comes with the keys issue). */
  apiKey?: PresentedApiKey;
  /** The raw access token from `Authorization: DPoP <token>`. */
  accessToken?: string;
  /** The raw DPoP proof JWT. */
  dpopProof?: string;
}

type SchemeCheck = (headers: IncomingHttpHeaders, auth: AuthContext) => void;

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function requireKeyOfType(type: 'secret' | 'publishable'): SchemeCheck {
  return (headers, auth) => {
    const raw = header(headers, 'x-service-api-key');
    if (!raw) throw new AppError('INVALID_CREDENTIALS', { message: 'Missing x-service-api-key header' });
    const key = parseApiKey(raw);
    if (!key) throw new AppError('INVALID_CREDENTIALS', { message: 'Malformed API key' });
    if (key.type !== type) {
      throw new AppError('API_KEY_TYPE_NOT_ALLOWED', {
        message: type === 'secret' ? 'This route needs a secret key (Server API)' : 'This route needs a publishable key (SDK API)',
      });
    }
    auth.apiKey = key;
  };
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

const checks: Record<SecuritySchemeName, SchemeCheck> = {
  secretKey: requireKeyOfType('secret'),
  publishableKey: requireKeyOfType('publishable'),
  userSession: requireDpopToken('SDK_AUTH_INVALID_TOKEN'),
  operatorSession: requireDpopToken('INVALID_CREDENTIALS'),
  dpopProof: (headers, auth) => {
    const proof = header(headers, 'dpop');
    if (!proof) throw new AppError('SDK_AUTH_DPOP_REQUIRED', { message: 'Missing DPoP proof header' });
    if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(proof)) {
      throw new AppError('SDK_AUTH_DPOP_INVALID', { message: 'The DPoP proof is not a compact JWS' });
    }
    auth.dpopProof = proof;
  },
};

// Keys before sessions before proofs: the key names the app a session must belong to.
const ORDER: SecuritySchemeName[] = ['secretKey', 'publishableKey', 'operatorSession', 'userSession', 'dpopProof'];

/**
 * Returns the auth context of the first satisfied requirement, or throws the first requirement's error.
 * `requirements` is the operation's list of alternatives, each a list of scheme names that must all pass.
 */
export function authenticate(requirements: readonly (readonly string[])[], headers: IncomingHttpHeaders): AuthContext {
  if (requirements.length === 0) return {};
  let firstError: unknown;
  for (const requirement of requirements) {
    const auth: AuthContext = {};
    try {
      const schemes = [...requirement].sort((a, b) => ORDER.indexOf(a as SecuritySchemeName) - ORDER.indexOf(b as SecuritySchemeName));
      for (const scheme of schemes) checks[scheme as SecuritySchemeName](headers, auth);
      return auth;
    } catch (err) {
      firstError ??= err;
    }
  }
  throw firstError;
}
