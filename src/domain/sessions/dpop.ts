// DPoP proof verification (RFC 9449) for every session-bound request and for the sign-in and refresh requests that
// bind new tokens to a key. Checks, in this order, so that nothing is stored for a forged proof:
//   1. form: a compact JWS with typ `dpop+jwt`, an asymmetric alg, and a public `jwk` header (jose's EmbeddedJWK);
//   2. signature by that jwk;
//   3. claims: `jti`, `htm` = the request method, `htu` = the request URL without query or fragment, `iat` within
//      300 s in the past / 30 s in the future, `ath` = base64url(SHA-256(access token)) when a token is presented;
//   4. the server nonce (`nonce` claim): missing or stale -> SDK_AUTH_DPOP_USE_NONCE with a fresh `DPoP-Nonce`;
//   5. replay: (jkt, jti) inserted once into dpop_proof_jtis (atomic insert-if-absent); a second use is refused.
// Nonces are stateless: base64url(window || HMAC(key, window || epoch)) with 5-minute windows, the current and the
// previous accepted, so every instance sharing the service secret accepts every other's nonces without a shared store.
//
// The replay table is UNLOGGED (migration 0031): a jti only has to be remembered while its proof could still be
// accepted (RFC 9449 section 11.1: the iat window, 330 s here), so its insert need not wait for the disk, and the one
// statement per proof commits without a WAL flush. PostgreSQL empties unlogged tables after a crash; what keeps replay
// protection exact across that is the `epoch` in the nonce: the database server's start time
// (pg_postmaster_start_time(), returned by every jti insert). A proof accepted before a restart carries a nonce of the
// old epoch, so it is refused after it (SDK_AUTH_DPOP_USE_NONCE with a nonce of the new epoch: clients retry once).
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { calculateJwkThumbprint, decodeProtectedHeader, EmbeddedJWK, jwtVerify, type JWK } from 'jose';
import { AppError } from '../errors';
import type { ServiceSecrets } from '../../infra/secrets/serviceSecret';

export const DPOP_IAT_PAST_SECONDS = 300;
export const DPOP_IAT_FUTURE_SECONDS = 30;
const NONCE_WINDOW_SECONDS = 300;
const ALGORITHMS = ['EdDSA', 'ES256', 'ES384', 'PS256', 'RS256'];
const MAX_JTI_LENGTH = 256;

export interface DpopCheck {
  proof: string;
  method: string;
  /** The request's URL as the client addressed it (scheme, host, path); query and fragment are ignored. */
  url: string;
  /** The access token sent with the proof, if any: the proof must then carry its `ath`. */
  accessToken?: string;
  now: Date;
}

export interface DpopVerifier {
  /** The key thumbprint (jkt) of a valid, fresh, never-seen proof; AppError SDK_AUTH_DPOP_* otherwise. */
  verify(check: DpopCheck): Promise<{ jkt: string }>;
  /** The nonce clients should put in their next proof (sent as `DPoP-Nonce`). */
  currentNonce(now: Date): string;
  /** Resolves once the database server's epoch is known, so that currentNonce's nonces are accepted. */
  ready(): Promise<void>;
}

function invalid(message: string, cause?: unknown): AppError {
  return new AppError('SDK_AUTH_DPOP_INVALID', {
    message,
    headers: { 'WWW-Authenticate': 'DPoP error="invalid_dpop_proof"' },
    cause,
  });
}

/** The htu form of a URL: scheme, host (default port dropped) and path; no query, no fragment. */
export function htuOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return undefined;
  }
}

export function athOf(accessToken: string): string {
  return createHash('sha256').update(accessToken, 'ascii').digest('base64url');
}

export function createDpopVerifier(db: Knex, secrets: ServiceSecrets): DpopVerifier {
  const nonceKey = secrets.derive('dpop-nonce');
  // The database server's start time as this process last saw it; undefined until the first proof is checked.
  let epoch: string | undefined;

  function nonceFor(window: number): string {
    const w = Buffer.alloc(8);
    w.writeBigUInt64BE(BigInt(window));
    const mac = createHmac('sha256', nonceKey)
      .update(w)
      .update(epoch ?? '')
      .digest()
      .subarray(0, 16);
    return Buffer.concat([w, mac]).toString('base64url');
  }

  // One query at a time; a failed one is forgotten, so the next proof asks again (a database briefly down at start-up
  // fails those proofs, never the process its DPoP for good).
  let loading: Promise<void> | undefined;
  function knownEpoch(): Promise<void> {
    if (epoch !== undefined) return Promise.resolve();
    loading ??= db
      .raw<{ rows: { epoch: string }[] }>('select pg_postmaster_start_time()::text as epoch')
      .then((result) => {
        epoch ??= result.rows[0]!.epoch;
      })
      .finally(() => (loading = undefined));
    return loading;
  }
  // Loaded at once, so that the nonces this process hands out are of the current epoch from its first answers on.
  knownEpoch().catch(() => undefined);

  function useNonce(now: Date): AppError {
    return new AppError('SDK_AUTH_DPOP_USE_NONCE', {
      message: 'Retry with the nonce from the DPoP-Nonce header',
      headers: {
        'WWW-Authenticate':
          'DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof"',
        'DPoP-Nonce': currentNonce(now),
      },
    });
  }
  const windowOf = (now: Date) => Math.floor(now.getTime() / 1000 / NONCE_WINDOW_SECONDS);

  function nonceIsFresh(nonce: unknown, now: Date): boolean {
    if (typeof nonce !== 'string' || nonce.length > 64) return false;
    const current = windowOf(now);
    return [current, current - 1].some((w) => {
      const expected = Buffer.from(nonceFor(w));
      const given = Buffer.from(nonce);
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
  }

  function currentNonce(now: Date): string {
    return nonceFor(windowOf(now));
  }

  async function verify(check: DpopCheck): Promise<{ jkt: string }> {
    // 1. form
    let header;
    try {
      header = decodeProtectedHeader(check.proof);
    } catch (err) {
      throw invalid('The DPoP proof is not a JWS', err);
    }
    if (header.typ !== 'dpop+jwt') throw invalid('The DPoP proof must have typ "dpop+jwt"');
    if (!header.alg || !ALGORITHMS.includes(header.alg))
      throw invalid(`The DPoP proof must be signed with one of ${ALGORITHMS.join(', ')}`);
    // 2. signature by the embedded public key (jose refuses a jwk with private parts)
    let payload;
    try {
      ({ payload } = await jwtVerify(check.proof, EmbeddedJWK, {
        typ: 'dpop+jwt',
        algorithms: ALGORITHMS,
        clockTolerance: 0,
        currentDate: check.now,
      }));
    } catch (err) {
      throw invalid('The DPoP proof signature is not valid', err);
    }
    const jkt = await calculateJwkThumbprint(header.jwk as JWK, 'sha256');
    // 3. claims
    if (typeof payload.jti !== 'string' || payload.jti.length === 0 || payload.jti.length > MAX_JTI_LENGTH)
      throw invalid('The DPoP proof needs a jti');
    if (payload.htm !== check.method.toUpperCase())
      throw invalid('The DPoP proof htm does not match the request method');
    const expectedHtu = htuOf(check.url);
    if (typeof payload.htu !== 'string' || !expectedHtu || htuOf(payload.htu) !== expectedHtu) {
      throw invalid(`The DPoP proof htu does not match the request URL (${expectedHtu ?? 'unknown'})`);
    }
    const nowSeconds = check.now.getTime() / 1000;
    if (
      typeof payload.iat !== 'number' ||
      payload.iat < nowSeconds - DPOP_IAT_PAST_SECONDS ||
      payload.iat > nowSeconds + DPOP_IAT_FUTURE_SECONDS
    ) {
      throw invalid('The DPoP proof iat is too old or in the future');
    }
    if (check.accessToken !== undefined && payload.ath !== athOf(check.accessToken)) {
      throw invalid('The DPoP proof ath does not match the access token');
    }
    // 4. the server nonce (of the database server's current epoch)
    await knownEpoch();
    if (!nonceIsFresh(payload.nonce, check.now)) throw useNonce(check.now);
    // 5. replay: the first use wins, atomically
    const keepUntil = new Date(
      Math.max(payload.iat * 1000, check.now.getTime()) + (DPOP_IAT_PAST_SECONDS + DPOP_IAT_FUTURE_SECONDS) * 1000,
    );
    const inserted = await db.raw<{ rows: { epoch: string }[] }>(
      `insert into dpop_proof_jtis (jkt, jti, expires_at) values (?, ?, ?) on conflict do nothing
       returning pg_postmaster_start_time()::text as epoch`,
      [jkt, payload.jti, keepUntil],
    );
    const row = inserted.rows[0];
    if (!row) throw invalid('The DPoP proof was already used');
    if (row.epoch !== epoch) {
      // The database server restarted since this process minted the proof's nonce: the replay table may have been
      // emptied, so a nonce of the old epoch proves nothing any more.
      epoch = row.epoch;
      throw useNonce(check.now);
    }
    return { jkt };
  }

  return { verify, currentNonce, ready: knownEpoch };
}

/** Forgets proofs that can no longer be replayed (their iat window has passed). */
export async function pruneDpopProofJtis(db: Knex, now: Date): Promise<number> {
  return db('dpop_proof_jtis').where('expires_at', '<', now).delete();
}
