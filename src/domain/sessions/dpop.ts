// DPoP proof verification (RFC 9449) for every session-bound request and for the sign-in and refresh requests that
// bind new tokens to a key. Checks, in this order, so that nothing is stored for a forged proof:
//   1. form: a compact JWS with typ `dpop+jwt`, an asymmetric alg, and a public `jwk` header (its thumbprint is the
//      proof's jkt; a private member refuses it);
//   2. signature by that jwk (imported once per key and kept; verified by node:crypto, proofSignature.ts says why);
//   3. claims: `jti`, `htm` = the request method, `htu` = the request URL without query or fragment, `iat` within
//      300 s in the past / 30 s in the future, `ath` = base64url(SHA-256(access token)) when a token is presented;
//   4. the server nonce (`nonce` claim): missing or stale -> SDK_AUTH_DPOP_USE_NONCE with a fresh `DPoP-Nonce`;
//   5. replay: (jkt, jti) inserted once into dpop_proof_jtis (atomic insert-if-absent, proofs arriving together in one
//      statement, under load the change feed's round trip); a second use is refused.
// Nonces are stateless: base64url(window || HMAC(key, window || epoch)) with 5-minute windows, the current and the
// previous accepted, so every instance sharing the service secret accepts every other's nonces without a shared store.
//
// The replay table is UNLOGGED (migration 0031): a jti only has to be remembered while its proof could still be
// accepted (RFC 9449 section 11.1: the iat window, 330 s here), so its insert need not wait for the disk, and the one
// statement per proof commits without a WAL flush. PostgreSQL empties unlogged tables after a crash; what keeps replay
// protection exact across that is the `epoch` in the nonce: the database server's start time
// (pg_postmaster_start_time(), returned by every jti insert). A proof accepted before a restart carries a nonce of the
// old epoch, so it is refused after it (SDK_AUTH_DPOP_USE_NONCE with a nonce of the new epoch: clients retry once).
import { createHash, createHmac, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { Knex } from 'knex';
import { decodeJwt, decodeProtectedHeader, type JWTPayload } from 'jose';
import { AppError } from '../errors';
import { importProofKey, PROOF_ALGORITHMS, proofSignatureIsValid } from './proofSignature';
import type { ServiceSecrets } from '../../infra/secrets/serviceSecret';
import { preparedQuery } from '../../infra/db/database';
import type { ChangeFeed } from '../../infra/db/changeFeed';

export const DPOP_IAT_PAST_SECONDS = 300;
export const DPOP_IAT_FUTURE_SECONDS = 30;
const NONCE_WINDOW_SECONDS = 300;
const ALGORITHMS = Object.keys(PROOF_ALGORITHMS);
const MAX_JTI_LENGTH = 256;
/** A lone surrogate (a surrogate code point: with the u flag a valid pair reads as one astral code point). */
const LONE_SURROGATE = /\p{Cs}/u;

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
  /**
   * verify() up to the replay record: the jkt of a valid, fresh proof, and `recorded`, its first use being recorded,
   * which rejects with the AppError of a replay (or of a nonce of the database server's previous epoch). For a caller
   * that runs work that changes nothing while the record is written, and answers only once it resolves.
   */
  verifyAhead(check: DpopCheck): Promise<{ jkt: string; recorded: Promise<void> }>;
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

/** The members of each key type that an RFC 7638 thumbprint covers, in the lexicographic order it hashes them. */
const THUMBPRINT_MEMBERS: Record<string, readonly string[]> = {
  EC: ['crv', 'kty', 'x', 'y'],
  OKP: ['crv', 'kty', 'x'],
  RSA: ['e', 'kty', 'n'],
};

/**
 * The RFC 7638 SHA-256 thumbprint of a public JWK (its `jkt`), or undefined when it is not a key of a supported type
 * with its required members as strings. Written out rather than jose's calculateJwkThumbprint, which gives the same
 * value (dpop.test.ts) but hashes through WebCrypto's asynchronous digest: about 90 us a proof here against 5 us.
 */
export function jwkThumbprint(jwk: unknown): string | undefined {
  if (typeof jwk !== 'object' || jwk === null) return undefined;
  const fields = jwk as Record<string, unknown>;
  const members = typeof fields.kty === 'string' ? THUMBPRINT_MEMBERS[fields.kty] : undefined;
  if (!members || members.some((m) => typeof fields[m] !== 'string')) return undefined;
  const canonical = `{${members.map((m) => `${JSON.stringify(m)}:${JSON.stringify(fields[m])}`).join(',')}}`;
  return createHash('sha256').update(canonical).digest('base64url');
}

/** JWK members that only a private or secret key has (RFC 7518 section 6). */
const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** The most proof keys kept imported (one per client key in use; the least recently used goes first). */
const MAX_IMPORTED_KEYS = 10_000;

/**
 * `feed`: the process's change feed, when it has one; proofs' replay records then go with its round trips under load
 * (createJtiClaims).
 */
export function createDpopVerifier(db: Knex, secrets: ServiceSecrets, feed?: ChangeFeed): DpopVerifier {
  const nonceKey = secrets.derive('dpop-nonce');
  // The database server's start time as this process last saw it; undefined until the first proof is checked.
  let epoch: string | undefined;
  const jtis = createJtiClaims(db, feed);
  // Client public keys already imported, by alg and thumbprint: a thumbprint covers every member that makes up the
  // public key, so the same thumbprint is the same key. Importing costs more than the signature check it serves.
  const importedKeys = new Map<string, KeyObject>();

  /** The proof's own public key (its jwk header, the import cached), or why it cannot verify an `alg` proof. */
  function proofKey(jwk: Record<string, unknown>, alg: string, jkt: string): KeyObject | string {
    const id = `${alg}:${jkt}`;
    const known = importedKeys.get(id);
    if (known) {
      importedKeys.delete(id);
      importedKeys.set(id, known);
      return known;
    }
    const key = importProofKey(jwk, alg);
    if (typeof key === 'string') return key;
    if (importedKeys.size >= MAX_IMPORTED_KEYS) importedKeys.delete(importedKeys.keys().next().value!);
    importedKeys.set(id, key);
    return key;
  }

  // The nonce of each 5-minute window, computed once: every proof is checked against two windows and every answer
  // of a DPoP operation names the current one, and an HMAC each time was a measurable part of a request. Keyed by
  // the epoch too, which changes the nonces of every window.
  const nonces = new Map<string, string>();
  function nonceFor(window: number): string {
    const id = `${window}:${epoch ?? ''}`;
    let nonce = nonces.get(id);
    if (nonce === undefined) {
      nonce = computeNonce(window);
      if (nonces.size >= 8) nonces.clear();
      nonces.set(id, nonce);
    }
    return nonce;
  }

  function computeNonce(window: number): string {
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
    const { jkt, recorded } = await verifyAhead(check);
    await recorded;
    return { jkt };
  }

  async function verifyAhead(check: DpopCheck): Promise<{ jkt: string; recorded: Promise<void> }> {
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
    // An extension the proof says must be understood (RFC 7515 section 4.1.11): this server understands none.
    if ('crit' in header) throw invalid('The DPoP proof names a crit extension this server does not support');
    const jkt = jwkThumbprint(header.jwk);
    if (!jkt) throw invalid('The DPoP proof needs a public jwk header (EC, OKP or RSA)');
    const jwk = header.jwk as Record<string, unknown>;
    // A private key in the header shares its public key's thumbprint: refused here, before the key cache could match it.
    if (PRIVATE_JWK_MEMBERS.some((m) => m in jwk)) throw invalid('The DPoP proof jwk header must be a public key');
    // 2. signature by the embedded public key
    const key = proofKey(jwk, header.alg, jkt);
    if (typeof key === 'string') throw invalid(`The DPoP proof jwk header cannot verify it: ${key}`);
    if (!proofSignatureIsValid(check.proof, header.alg, key)) throw invalid('The DPoP proof signature is not valid');
    let payload: JWTPayload;
    try {
      payload = decodeJwt(check.proof);
    } catch (err) {
      throw invalid('The DPoP proof payload is not a JSON object', err);
    }
    // 3. claims
    if (typeof payload.jti !== 'string' || payload.jti.length === 0 || payload.jti.length > MAX_JTI_LENGTH)
      throw invalid('The DPoP proof needs a jti');
    // What PostgreSQL's text cannot hold as given: a NUL would fail the statement that records the proofs of its group
    // (and the change feed's round trip that carries it), so other requests' proofs; a lone surrogate would be stored
    // as U+FFFD, another jti than the proof's.
    if (payload.jti.includes('\u0000') || LONE_SURROGATE.test(payload.jti))
      throw invalid('The DPoP proof jti must be well-formed text without NUL');
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
    // exp and nbf are not DPoP claims, but a proof that carries them is held to them (as a JWT verifier would).
    if (payload.exp !== undefined && (typeof payload.exp !== 'number' || payload.exp <= nowSeconds))
      throw invalid('The DPoP proof has expired (exp)');
    if (payload.nbf !== undefined && (typeof payload.nbf !== 'number' || payload.nbf > nowSeconds))
      throw invalid('The DPoP proof is not valid yet (nbf)');
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
    const recorded = jtis.claim({ jkt, jti: payload.jti, keepUntil }).then((firstUse) => {
      if (!firstUse) throw invalid('The DPoP proof was already used');
      if (firstUse.epoch !== epoch) {
        // The database server restarted since this process minted the proof's nonce: the replay table may have been
        // emptied, so a nonce of the old epoch proves nothing any more.
        epoch = firstUse.epoch;
        throw useNonce(check.now);
      }
    });
    // A caller that stops at a later check of its own leaves the record unawaited: its refusal is not lost, only unread.
    recorded.catch(() => undefined);
    return { jkt, recorded };
  }

  return { verify, verifyAhead, currentNonce, ready: knownEpoch };
}

export interface JtiClaim {
  jkt: string;
  jti: string;
  keepUntil: Date;
}

/**
 * Inserts each (jkt, jti) not recorded yet; returns those inserted, with the database server's epoch. A prepared
 * statement (database.ts preparedQuery): against knex's raw query, paired in the sessions bench, 1.17x the DPoP
 * requests answered (bench/results/2026-12-02-sessions.md).
 */
const CLAIM_SQL = `insert into dpop_proof_jtis (jkt, jti, expires_at)
  select * from unnest($1::text[], $2::text[], $3::timestamptz[])
  on conflict do nothing
  returning jkt, jti, pg_postmaster_start_time()::text as epoch`;

/** The most proofs recorded by one statement on the pool. */
const MAX_JTI_BATCH = 200;
const CLAIM_STATEMENT = 'dpop-jti-claim';

/**
 * Records proofs' (jkt, jti) in the replay table, the first use of each winning: claim() resolves to the database
 * server's epoch when this is the first use, undefined for a replay. Exactness is the database's: each pair is
 * inserted-if-absent against the primary key, and a pair twice in one group is a replay before it is sent.
 *
 * Proofs are recorded in groups, one statement each, by one of two ways:
 *   - with the change feed's round trip (`feed`, changeFeed.ts FeedCarrier): under load every gated request queues a
 *     round trip on the listening connection (its caches' sync), and a proof checked while one is queued goes with
 *     it, as that round trip's statement. The sync was going to the database anyway: one statement instead of two.
 *     In the sessions bench about 85% of proofs go this way, and the DPoP request went from 0.83-0.85 (ES256) and
 *     0.81-0.85 (EdDSA) of its baseline to 0.90 and 0.86-0.88 (paired whole runs, bench/results/2026-12-03-sessions.md).
 *   - on a pooled connection otherwise (no round trip queued: a request alone; the feed down): while one insert is in
 *     flight, the proofs that arrive meanwhile wait and go in the next. Alone, a proof is recorded at once, beside
 *     its request's sync rather than after it.
 * A proof waiting for a queued round trip that is never sent (the feed went down) is recorded on the pool instead.
 */
export function createJtiClaims(
  db: Knex,
  feed?: ChangeFeed,
): { claim(claim: JtiClaim): Promise<{ epoch: string } | undefined> } {
  type Waiting = JtiClaim & { settle: (result: { epoch: string } | undefined) => void; fail: (err: unknown) => void };
  type Inserted = { jkt: string; jti: string; epoch: string };
  let waiting: Waiting[] = [];
  let flushing = false;
  // Waiting for the feed's queued round trip (`ridden`), taken as its statement when it is sent.
  let riding: Waiting[] = [];
  let ridden: Promise<void> | undefined;

  const idOf = (c: { jkt: string; jti: string }) => JSON.stringify([c.jkt, c.jti]);

  /** The group's claims by pair, the first of each; a later one of the same pair is a replay, settled at once. */
  function firstOfEach(group: Waiting[]): Map<string, Waiting> {
    const first = new Map<string, Waiting>();
    for (const c of group) {
      const id = idOf(c);
      if (first.has(id)) c.settle(undefined);
      else first.set(id, c);
    }
    return first;
  }

  const valuesOf = (claims: Iterable<Waiting>) => {
    const list = [...claims];
    return [list.map((c) => c.jkt), list.map((c) => c.jti), list.map((c) => c.keepUntil.toISOString())];
  };

  function settleAll(first: Map<string, Waiting>, inserted: Inserted[]): void {
    const won = new Map(inserted.map((r) => [idOf(r), r.epoch]));
    for (const [id, c] of first) {
      const epoch = won.get(id);
      c.settle(epoch === undefined ? undefined : { epoch });
    }
  }

  async function record(group: Waiting[]): Promise<void> {
    const first = firstOfEach(group);
    try {
      const inserted = await preparedQuery<Inserted>(db, CLAIM_STATEMENT, CLAIM_SQL, valuesOf(first.values()));
      settleAll(first, inserted.rows);
    } catch (err) {
      for (const c of first.values()) c.fail(err);
    }
  }

  async function flush(): Promise<void> {
    flushing = true;
    try {
      while (waiting.length > 0) {
        const group = waiting.slice(0, MAX_JTI_BATCH);
        waiting = waiting.slice(group.length);
        await record(group);
      }
    } finally {
      flushing = false;
    }
  }

  function onPool(claims: Waiting[]): void {
    waiting.push(...claims);
    if (!flushing) void flush();
  }

  feed?.carry({
    take() {
      if (riding.length === 0) return undefined;
      const first = firstOfEach(riding);
      riding = [];
      ridden = undefined;
      return {
        name: CLAIM_STATEMENT,
        text: CLAIM_SQL,
        values: valuesOf(first.values()),
        done: (rows) => settleAll(first, rows as Inserted[]),
        failed: (err) => {
          for (const c of first.values()) c.fail(err);
        },
      };
    },
  });

  return {
    claim(claim) {
      return new Promise((settle, fail) => {
        const c: Waiting = { ...claim, settle, fail };
        const queued = feed?.connected ? feed.queuedSync() : undefined;
        if (!queued) return onPool([c]);
        riding.push(c);
        if (ridden === queued) return;
        ridden = queued;
        // Not sent after all (the feed is down): nothing was taken, so the pool records what still waits.
        queued.catch(() => {
          const left = riding;
          riding = [];
          ridden = undefined;
          if (left.length > 0) onPool(left);
        });
      });
    },
  };
}

/** Forgets proofs that can no longer be replayed (their iat window has passed). */
export async function pruneDpopProofJtis(db: Knex, now: Date): Promise<number> {
  return db('dpop_proof_jtis').where('expires_at', '<', now).delete();
}
