// DPoP for the client library (RFC 9449): a key pair that never leaves the device (the private key is a
// non-extractable WebCrypto key, so it can be kept in IndexedDB but never read out), proofs signed with jose, and a
// fetch wrapper that puts the session's access token and a fresh proof on every request, remembers the server's
// nonce (DPoP-Nonce) and retries once when the server asks for a newer one. Works in browsers and in Node 20+.
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';

export interface DpopSigner {
  /** RFC 7638 thumbprint of the public key: the `cnf.jkt` of tokens bound to this key. */
  readonly jkt: string;
  /** A proof for one request; `url` may carry a query (it is dropped). */
  proof(method: string, url: string, opts?: { accessToken?: string; nonce?: string }): Promise<string>;
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
      return new SignJWT({
        jti: crypto.randomUUID(),
        htm: method.toUpperCase(),
        htu: `${u.protocol}//${u.host}${u.pathname}`,
        ...(opts.nonce ? { nonce: opts.nonce } : {}),
        ...(opts.accessToken ? { ath: await sha256Base64url(opts.accessToken) } : {}),
      })
        .setProtectedHeader({ alg, typ: 'dpop+jwt', jwk: publicJwk })
        .setIssuedAt()
        .sign(pair.privateKey);
    },
  };
}

/** Where the fetch wrapper reads the current access token (none before sign-in). */
export interface TokenSource {
  accessToken(): string | undefined;
}

/**
 * A fetch that adds `DPoP` (and `Authorization: DPoP <token>` when a token is set) to every request, keeps the
 * latest `DPoP-Nonce`, and retries once when the answer is 401 SDK_AUTH_DPOP_USE_NONCE (or a 400/401 carrying
 * `use_dpop_nonce` in WWW-Authenticate) with the new nonce. Each attempt gets a new proof.
 */
export function dpopFetch(signer: DpopSigner, tokens: TokenSource, baseFetch: typeof fetch = fetch): typeof fetch {
  let nonce: string | undefined;
  return async (input, init) => {
    const original = new Request(input, init);
    for (let attempt = 0; ; attempt++) {
      const request = original.clone();
      const accessToken = tokens.accessToken();
      request.headers.set(
        'dpop',
        await signer.proof(request.method, request.url, {
          ...(accessToken ? { accessToken } : {}),
          ...(nonce ? { nonce } : {}),
        }),
      );
      if (accessToken) request.headers.set('authorization', `DPoP ${accessToken}`);
      const response = await baseFetch(request);
      const fresh = response.headers.get('dpop-nonce');
      const askedForNonce =
        (response.status === 401 || response.status === 400) &&
        /use_dpop_nonce/.test(response.headers.get('www-authenticate') ?? '');
      if (fresh) nonce = fresh;
      if (askedForNonce && fresh && attempt === 0) continue;
      return response;
    }
  };
}
