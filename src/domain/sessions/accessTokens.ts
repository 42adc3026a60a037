// Access tokens: short-lived JWTs (RFC 9068 `at+jwt`) signed with EdDSA (Ed25519), bound to the client's DPoP key by
// `cnf.jkt` (RFC 9449 section 6). The signing key is derived from the service secret, so every instance sharing
// ONBOARD_SECRET signs and verifies the same tokens and no key material sits in the database. Rotating the secret
// ends every access token (refresh tokens are hashed under a derived key too, so they end as well).
//
// A token alone is not enough: the gate also checks that its session is live (sign-out ends tokens at once) and that
// the request carries a DPoP proof by the bound key.
import { createPrivateKey, createPublicKey, randomUUID, type KeyObject } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { AppError } from '../errors';
import type { ServiceSecrets } from '../../infra/secrets/serviceSecret';

export type Audience = 'operator' | 'user';

/** The `aud` claim per surface: a Dashboard token is refused on the SDK API and the reverse. */
const AUD: Record<Audience, string> = { operator: 'onboard:dashboard', user: 'onboard:sdk' };
const ISSUER = 'onboard';

export interface AccessTokenClaims {
  audience: Audience;
  /** op_... or usr_... */
  subjectId: string;
  sessionId: string;
  /** Thumbprint of the DPoP key. */
  jkt: string;
  /** End-user tokens: the app and its network. */
  appId?: string;
  network?: string;
}

export interface AccessTokenSigner {
  sign(claims: AccessTokenClaims, now: Date, ttlSeconds: number): Promise<string>;
  /** The claims of a valid token for `audience`; AppError SDK_AUTH_TOKEN_EXPIRED / SDK_AUTH_INVALID_TOKEN otherwise. */
  verify(token: string, audience: Audience, now: Date): Promise<AccessTokenClaims & { expiresAt: Date }>;
}

// PKCS#8 DER of an Ed25519 private key is this fixed prefix followed by the 32-byte seed (RFC 8410).
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function signingKeyFrom(secrets: ServiceSecrets): { privateKey: KeyObject; publicKey: KeyObject } {
  const seed = secrets.derive('access-token-signing-ed25519');
  const privateKey = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  return { privateKey, publicKey: createPublicKey(privateKey) };
}

type VerifiedClaims = AccessTokenClaims & { expiresAt: Date };

/** The most verified tokens kept (one per session in use; the oldest goes first). */
const MAX_VERIFIED_TOKENS = 10_000;

export function createAccessTokenSigner(secrets: ServiceSecrets): AccessTokenSigner {
  const { privateKey, publicKey } = signingKeyFrom(secrets);
  // Tokens whose signature and claims were verified, by the token itself: a session sends the same token with every
  // request until it refreshes, and its signature cannot change, so it is checked once (an EdDSA verification through
  // jose costs about 300 us here). What depends on the time (expiry) or the route (audience) is checked on every use;
  // whether its session is still live is the gate's next check, never cached here.
  const verified = new Map<string, VerifiedClaims>();

  function fromCache(token: string, audience: Audience, now: Date): VerifiedClaims | undefined {
    const claims = verified.get(token);
    if (!claims) return undefined;
    if (Math.floor(now.getTime() / 1000) >= claims.expiresAt.getTime() / 1000) {
      verified.delete(token);
      throw new AppError('SDK_AUTH_TOKEN_EXPIRED', { message: 'The access token expired; refresh the session' });
    }
    if (claims.audience !== audience) {
      throw new AppError('SDK_AUTH_INVALID_TOKEN', { message: 'The access token is not valid' });
    }
    return claims;
  }

  function remember(token: string, claims: VerifiedClaims): void {
    if (verified.size >= MAX_VERIFIED_TOKENS) verified.delete(verified.keys().next().value!);
    verified.set(token, claims);
  }

  return {
    async sign(claims, now, ttlSeconds) {
      const iat = Math.floor(now.getTime() / 1000);
      return new SignJWT({
        sid: claims.sessionId,
        cnf: { jkt: claims.jkt },
        ...(claims.appId ? { app_id: claims.appId } : {}),
        ...(claims.network ? { network: claims.network } : {}),
      })
        .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt' })
        .setIssuer(ISSUER)
        .setAudience(AUD[claims.audience])
        .setSubject(claims.subjectId)
        .setIssuedAt(iat)
        .setExpirationTime(iat + ttlSeconds)
        .setJti(randomUUID())
        .sign(privateKey);
    },
    async verify(token, audience, now) {
      const known = fromCache(token, audience, now);
      if (known) return known;
      let payload;
      try {
        ({ payload } = await jwtVerify(token, publicKey, {
          algorithms: ['EdDSA'],
          typ: 'at+jwt',
          issuer: ISSUER,
          audience: AUD[audience],
          currentDate: now,
          requiredClaims: ['sub', 'exp', 'iat', 'sid', 'cnf'],
        }));
      } catch (err) {
        if (err instanceof joseErrors.JWTExpired)
          throw new AppError('SDK_AUTH_TOKEN_EXPIRED', { message: 'The access token expired; refresh the session' });
        throw new AppError('SDK_AUTH_INVALID_TOKEN', { message: 'The access token is not valid', cause: err });
      }
      const jkt = (payload.cnf as { jkt?: unknown } | undefined)?.jkt;
      if (typeof jkt !== 'string' || typeof payload.sid !== 'string') {
        throw new AppError('SDK_AUTH_INVALID_TOKEN', { message: 'The access token is not DPoP-bound' });
      }
      const claims: VerifiedClaims = {
        audience,
        subjectId: payload.sub!,
        sessionId: payload.sid,
        jkt,
        ...(typeof payload.app_id === 'string' ? { appId: payload.app_id } : {}),
        ...(typeof payload.network === 'string' ? { network: payload.network } : {}),
        expiresAt: new Date(payload.exp! * 1000),
      };
      remember(token, claims);
      return claims;
    },
  };
}
