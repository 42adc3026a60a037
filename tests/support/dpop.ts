// A DPoP client for tests (RFC 9449): a key pair, proofs signed with jose, and the nonce the server last sent.
import { randomUUID, createHash } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { AppError } from '../../src/domain/errors';

export interface DpopKey {
  privateKey: CryptoKey;
  publicJwk: JWK;
  /** RFC 7638 thumbprint: the `cnf.jkt` of tokens bound to this key. */
  jkt: string;
  alg: 'ES256' | 'EdDSA';
}

export async function createDpopKey(alg: 'ES256' | 'EdDSA' = 'ES256'): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  return { privateKey, publicJwk, jkt: await calculateJwkThumbprint(publicJwk, 'sha256'), alg };
}

export interface ProofOptions {
  method: string;
  url: string;
  accessToken?: string;
  nonce?: string;
  /** Override claims or header fields (negative tests). */
  claims?: Record<string, unknown>;
  header?: Record<string, unknown>;
  iat?: number;
}

export async function dpopProof(key: DpopKey, opts: ProofOptions): Promise<string> {
  const u = new URL(opts.url);
  const payload: Record<string, unknown> = {
    jti: randomUUID(),
    htm: opts.method.toUpperCase(),
    htu: `${u.protocol}//${u.host}${u.pathname}`,
    iat: opts.iat ?? Math.floor(Date.now() / 1000),
    ...(opts.nonce ? { nonce: opts.nonce } : {}),
    ...(opts.accessToken ? { ath: createHash('sha256').update(opts.accessToken).digest('base64url') } : {}),
    ...opts.claims,
  };
  return new SignJWT(payload)
    .setProtectedHeader({ alg: key.alg, typ: 'dpop+jwt', jwk: key.publicJwk, ...opts.header })
    .sign(key.privateKey);
}

/** How proof checks settled: accepted, refused as a replay (SDK_AUTH_DPOP_INVALID), or anything else. */
export function proofOutcomes(results: PromiseSettledResult<unknown>[]): {
  accepted: number;
  replays: number;
  other: unknown[];
} {
  let accepted = 0;
  let replays = 0;
  const other: unknown[] = [];
  for (const r of results) {
    if (r.status === 'fulfilled') accepted += 1;
    else if (r.reason instanceof AppError && r.reason.code === 'SDK_AUTH_DPOP_INVALID') replays += 1;
    else other.push(r.reason);
  }
  return { accepted, replays, other };
}
