// DPoP for the client library (RFC 9449): a key pair that never leaves the device (the private key is a
// non-extractable WebCrypto key, so it can be kept in IndexedDB but never read out), proofs signed with jose, and a
// fetch wrapper that puts the session's access token and a fresh proof on every request, remembers the server's
// nonce (DPoP-Nonce) and retries once when the server asks for a newer one. Works in browsers and in Node 20+.
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';

export interface DpopSigner {
  /** RFC 7638 thumbprint of the public key: the `cnf.jkt` of tokens bound to this key. */
  readonly jkt: string;
  /** A proof for one request; `url` may carry a query (it is dropped). */
  proof(
    method: string,
    url: string,
    opts?: { accessToken?: string; nonce?: string; clockOffsetMs?: number },
  ): Promise<string>;
}

async function sha256Base64url(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  let binary = '';
  for (const byte of digest) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** A signer for `keyPair`, or for a new ES256 key pair whose private key cannot be exported. */
export async function createDpopSigner(keyPair?: CryptoKeyPair): Promise<DpopSigner> {
  const pair = keyPair ?? (await generateKeyPair('ES256', { extractable: false }));
  const jwk: JWK = await exportJWK(pair.publicKey);
  const publicJwk: JWK = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, ...(jwk.y ? { y: jwk.y } : {}) };
  const alg = publicJwk.kty === 'OKP' ? 'EdDSA' : 'ES256';
  const jkt = await calculateJwkThumbprint(publicJwk, 'sha256');
  return {
    jkt,
    async proof(method, url, opts = {}) {
      const u = new URL(url);
      return (
        new SignJWT({
          jti: crypto.randomUUID(),
          htm: method.toUpperCase(),
          htu: `${u.protocol}//${u.host}${u.pathname}`,
          ...(opts.nonce ? { nonce: opts.nonce } : {}),
          ...(opts.accessToken ? { ath: await sha256Base64url(opts.accessToken) } : {}),
        })
          .setProtectedHeader({ alg, typ: 'dpop+jwt', jwk: publicJwk })
          // The server's clock when it is known to differ (a proof's iat must be within its window, not ours).
          .setIssuedAt(Math.floor((Date.now() + (opts.clockOffsetMs ?? 0)) / 1000))
          .sign(pair.privateKey)
      );
    },
  };
}

/** Where the fetch wrapper reads the current access token (none before sign-in). */
export interface TokenSource {
  accessToken(): string | undefined;
}

/**
 * What the server told the client about proofs: its latest nonce and how far its clock is from ours. Shared by the
 * fetch wrappers of one client, so the sign-in and the session calls use one nonce.
 */
export interface DpopServerState {
  nonce?: string;
  clockOffsetMs: number;
}

/** Clocks closer than this are treated as equal (Date has a one-second resolution; the server allows 30 s ahead). */
const CLOCK_SKEW_IGNORED_MS = 10_000;

function errorCodeIn(wwwAuthenticate: string): string | undefined {
  return /error="?([a-z_]+)/.exec(wwwAuthenticate)?.[1];
}

/**
 * A fetch that adds `DPoP` (and `Authorization: DPoP <token>` when a token is set) to every request, keeps the
 * latest `DPoP-Nonce` and the server's clock (`Date`), and retries once when the answer asks for a new nonce
 * (`use_dpop_nonce` in WWW-Authenticate) or refuses a proof whose time the server's clock showed to be off. Each
 * attempt gets a new proof.
 */
export function dpopFetch(
  signer: DpopSigner,
  tokens: TokenSource,
  baseFetch: typeof fetch = fetch,
  server: DpopServerState = { clockOffsetMs: 0 },
): typeof fetch {
  return async (input, init) => {
    const original = new Request(input, init);
    for (let attempt = 0; ; attempt++) {
      const request = original.clone();
      const accessToken = tokens.accessToken();
      const offsetUsed = server.clockOffsetMs;
      request.headers.set(
        'dpop',
        await signer.proof(request.method, request.url, {
          ...(accessToken ? { accessToken } : {}),
          ...(server.nonce ? { nonce: server.nonce } : {}),
          clockOffsetMs: offsetUsed,
        }),
      );
      if (accessToken) request.headers.set('authorization', `DPoP ${accessToken}`);
      const response = await baseFetch(request);
      const fresh = response.headers.get('dpop-nonce');
      if (fresh) server.nonce = fresh;
      const date = Date.parse(response.headers.get('date') ?? '');
      if (Number.isFinite(date)) {
        const offset = date - Date.now();
        server.clockOffsetMs = Math.abs(offset) < CLOCK_SKEW_IGNORED_MS ? 0 : offset;
      }
      const refused = response.status === 401 || response.status === 400;
      const error = refused ? errorCodeIn(response.headers.get('www-authenticate') ?? '') : undefined;
      const retry =
        attempt === 0 &&
        ((error === 'use_dpop_nonce' && fresh !== null) ||
          (error === 'invalid_dpop_proof' && server.clockOffsetMs !== offsetUsed));
      if (!retry) return response;
    }
  };
}
