// The signature check of a DPoP proof (a compact JWS, RFC 7515) by node:crypto on a KeyObject.
//
// Written here rather than left to jose's jwtVerify, which the rest of the session code keeps using (decoding, access
// tokens): jose 6 verifies only through WebCrypto, which on Node 24 ran the signature on the event loop behind its
// job and promise machinery, at about twice the cost of the signature itself (an EdDSA proof: about 170 us through
// jose against 83 us by a synchronous node:crypto.verify here). Every session-bound request carries a proof, so that
// was the largest cost DPoP added to a request (bench/results/2026-12-02-sessions.md). What jose checked on the way
// is checked here too: the algorithm is one of a fixed list and the key is of that algorithm's type and curve (never
// chosen by the proof alone), RSA keys have at least 2048 bits and every segment is strict base64url. (dpop.ts refuses
// a `crit` header, an extension this server does not understand such as RFC 7797's unencoded payload, before it gets
// here.)
import { constants, createPublicKey, verify, type KeyObject } from 'node:crypto';

interface Algorithm {
  kty: 'OKP' | 'EC' | 'RSA';
  /** The JWK curves allowed (OKP and EC). */
  curves?: readonly string[];
  /** The digest node:crypto.verify is given: none for EdDSA, which hashes as part of the scheme. */
  digest: 'sha256' | 'sha384' | null;
  /** PSS padding with the digest's length as salt (RFC 7518 section 3.5); PKCS #1 v1.5 otherwise. */
  pss?: boolean;
  /** ECDSA: the length of each of r and s. A JWS signature is r || s (RFC 7518 section 3.4), node's is DER. */
  ecdsaHalf?: number;
}

/** The proof algorithms accepted, with what each needs of its key (RFC 7518 section 3.1, RFC 8037). */
export const PROOF_ALGORITHMS: Readonly<Record<string, Algorithm>> = {
  EdDSA: { kty: 'OKP', curves: ['Ed25519'], digest: null },
  ES256: { kty: 'EC', curves: ['P-256'], digest: 'sha256', ecdsaHalf: 32 },
  ES384: { kty: 'EC', curves: ['P-384'], digest: 'sha384', ecdsaHalf: 48 },
  PS256: { kty: 'RSA', digest: 'sha256', pss: true },
  RS256: { kty: 'RSA', digest: 'sha256' },
};

const MIN_RSA_BITS = 2048;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * The public key of `jwk` for verifying `alg` signatures, or a reason it cannot be: an unknown algorithm, a key of
 * another type or curve, a short RSA modulus, a JWK node cannot import. The caller has refused private members.
 */
export function importProofKey(jwk: Record<string, unknown>, alg: string): KeyObject | string {
  const spec = Object.hasOwn(PROOF_ALGORITHMS, alg) ? PROOF_ALGORITHMS[alg] : undefined;
  if (!spec) return `the algorithm ${alg} is not accepted`;
  if (jwk.kty !== spec.kty) return `an ${alg} proof needs a key of type ${spec.kty}`;
  if (spec.curves && !spec.curves.includes(jwk.crv as string)) return `an ${alg} proof needs a ${spec.curves[0]} key`;
  let key: KeyObject;
  try {
    key = createPublicKey({ key: jwk, format: 'jwk' });
  } catch {
    return 'the jwk is not a valid public key';
  }
  if (spec.kty === 'RSA' && (key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_BITS)
    return `RSA keys must have at least ${MIN_RSA_BITS} bits`;
  return key;
}

/**
 * Whether the compact JWS `proof` is signed by `key` with `alg` (as imported by importProofKey for that alg). False
 * for anything that is not three strict base64url segments. The signature is checked on the event loop
 * (node:crypto.verify without a callback: 80 us for ES256, 120-130 us for EdDSA on a 2-core AMD EPYC, as the
 * machine's own `openssl speed` has them). On libuv's thread pool it took less of the loop's time alone, but under
 * load on 2 cores, where the pool's thread, PostgreSQL and the loop share the cores, handing each proof to a thread
 * and waking the loop for its answer cost more than it saved: paired whole runs of BENCH=sessions, the DPoP request
 * at 0.78-0.79 (ES256) and 0.84-0.88 (EdDSA) of its baseline on the loop against 0.70-0.72 and 0.66-0.77 on the pool
 * (bench/results/2026-12-03-sessions.md).
 */
export function proofSignatureIsValid(proof: string, alg: string, key: KeyObject): boolean {
  const spec = Object.hasOwn(PROOF_ALGORITHMS, alg) ? PROOF_ALGORITHMS[alg] : undefined;
  if (!spec) return false;
  const parts = proof.split('.');
  if (parts.length !== 3 || !parts.every((p) => BASE64URL.test(p))) return false;
  const signingInput = Buffer.from(`${parts[0]}.${parts[1]}`, 'ascii');
  let signature: Buffer = Buffer.from(parts[2]!, 'base64url');
  if (spec.ecdsaHalf !== undefined) {
    if (signature.length !== 2 * spec.ecdsaHalf) return false;
    signature = ecdsaDer(signature, spec.ecdsaHalf);
  }
  // The KeyObject itself where no option is needed: node takes an options object through a slower path (about 40 us
  // more for ES256 here), which is why ECDSA signatures are turned into DER rather than passed with dsaEncoding
  // 'ieee-p1363'.
  const keyOrOptions = spec.pss
    ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }
    : key;
  try {
    return verify(spec.digest, signingInput, keyOrOptions, signature);
  } catch {
    // A signature node cannot even parse for this key is not a valid one.
    return false;
  }
}

/** A JWS ECDSA signature (r || s, each `half` bytes) as DER: SEQUENCE { INTEGER r, INTEGER s }. */
function ecdsaDer(rs: Buffer, half: number): Buffer {
  const integer = (bytes: Buffer): Buffer => {
    let start = 0;
    while (start < bytes.length - 1 && bytes[start] === 0) start++;
    const body = bytes.subarray(start);
    // A set high bit would read as negative: a zero byte in front keeps the integer positive.
    const value = body[0]! & 0x80 ? Buffer.concat([Buffer.of(0), body]) : body;
    return Buffer.concat([Buffer.of(0x02, value.length), value]);
  };
  const r = integer(rs.subarray(0, half));
  const s = integer(rs.subarray(half));
  // At most 2 x (2 + 49) bytes for P-384: the short form of a length always fits.
  return Buffer.concat([Buffer.of(0x30, r.length + s.length), r, s]);
}
