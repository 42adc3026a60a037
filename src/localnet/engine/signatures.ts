// Signature checking as stellar-core's SignatureChecker: signatures are matched against a signer list (pre-auth
// hashes first, then hash(x), ed25519 and ed25519-signed-payload signers), weights are summed (capped at 255 each)
// until the needed threshold is reached, and every signature that matched is marked used so that unused ones can be
// reported as txBAD_AUTH_EXTRA.

import { type KeyObject, createHash, createPublicKey, verify } from 'node:crypto';
import { StrKey, type xdr } from '@stellar/stellar-sdk';
import { fromHex } from './encode';
import type { AccountRecord, SignerRecord } from './state';

type Signer = Pick<SignerRecord, 'type' | 'keyHex' | 'payloadHex' | 'weight'>;

const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

const keyObjects = new Map<string, KeyObject>();
const verified = new Map<string, boolean>();
/** Bounds for the two caches below (like core's signature cache, they only save repeated ed25519 work). */
const CACHE_LIMIT = 50_000;

function publicKeyObject(publicKey: Uint8Array): KeyObject {
  const hex = Buffer.from(publicKey).toString('hex');
  let key = keyObjects.get(hex);
  if (!key) {
    key = createPublicKey({
      key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(publicKey)]),
      format: 'der',
      type: 'spki',
    });
    if (keyObjects.size >= CACHE_LIMIT) keyObjects.clear();
    keyObjects.set(hex, key);
  }
  return key;
}

/**
 * ed25519 verification, memoised: a transaction's signatures are checked once per operation source and again at
 * apply, so the same (key, message, signature) triple recurs many times.
 */
export function verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (signature.length !== 64 || publicKey.length !== 32) return false;
  const memo = Buffer.concat([publicKey, signature, message]).toString('base64');
  const known = verified.get(memo);
  if (known !== undefined) return known;
  let ok: boolean;
  try {
    ok = verify(null, message, publicKeyObject(publicKey), signature);
  } catch {
    ok = false;
  }
  if (verified.size >= CACHE_LIMIT) verified.clear();
  verified.set(memo, ok);
  return ok;
}

/** Last four bytes of a key: the DecoratedSignature hint. */
function hintOf(bytes: Uint8Array): Uint8Array {
  return bytes.length >= 4 ? bytes.subarray(bytes.length - 4) : bytes;
}

function hintMatches(bytes: Uint8Array, hint: Uint8Array): boolean {
  if (bytes.length < 4 || hint.length !== 4) return false;
  const h = hintOf(bytes);
  return h[0] === hint[0] && h[1] === hint[1] && h[2] === hint[2] && h[3] === hint[3];
}

function signedPayloadHint(pub: Uint8Array, payload: Uint8Array): Uint8Array {
  const a = hintOf(pub);
  const b = new Uint8Array(4);
  b.set(payload.length >= 4 ? payload.subarray(payload.length - 4) : payload);
  return new Uint8Array([0, 1, 2, 3].map((i) => (a[i] as number) ^ (b[i] as number)));
}

export class SignatureChecker {
  private readonly used: boolean[];

  constructor(
    private readonly contentsHash: Uint8Array,
    private readonly signatures: readonly xdr.DecoratedSignatureWire[],
  ) {
    this.used = signatures.map(() => false);
  }

  /** True when signatures from `signers` reach `neededWeight` (at least one matching signature is always needed). */
  check(signers: readonly Signer[], neededWeight: number): boolean {
    let total = 0;
    const cap = (w: number) => Math.min(w, 255);
    const hashHex = Buffer.from(this.contentsHash).toString('hex');

    for (const s of signers) {
      if (s.type === 1 && s.keyHex === hashHex) {
        total += cap(s.weight);
        if (total >= neededWeight) return true;
      }
    }

    const verifyAll = (group: Signer[], matches: (sig: xdr.DecoratedSignatureWire, s: Signer) => boolean): boolean => {
      for (let i = 0; i < this.signatures.length; i++) {
        const sig = this.signatures[i] as xdr.DecoratedSignatureWire;
        for (let j = 0; j < group.length; j++) {
          const s = group[j] as Signer;
          if (matches(sig, s)) {
            this.used[i] = true;
            total += cap(s.weight);
            if (total >= neededWeight) return true;
            group.splice(j, 1);
            break;
          }
        }
      }
      return false;
    };

    const hashX = signers.filter((s) => s.type === 2);
    if (
      verifyAll(hashX, (sig, s) => {
        const key = fromHex(s.keyHex);
        if (!hintMatches(key, sig.hint)) return false;
        return createHash('sha256').update(sig.signature).digest('hex') === s.keyHex;
      })
    ) {
      return true;
    }

    const ed = signers.filter((s) => s.type === 0);
    if (
      verifyAll(ed, (sig, s) => {
        const key = fromHex(s.keyHex);
        return hintMatches(key, sig.hint) && verifyEd25519(key, this.contentsHash, sig.signature);
      })
    ) {
      return true;
    }

    const payloads = signers.filter((s) => s.type === 3);
    return verifyAll(payloads, (sig, s) => {
      const key = fromHex(s.keyHex);
      const payload = fromHex(s.payloadHex ?? '');
      const hint = sig.hint;
      const expected = signedPayloadHint(key, payload);
      if (!expected.every((b, i) => b === hint[i])) return false;
      return verifyEd25519(key, payload, sig.signature);
    });
  }

  allUsed(): boolean {
    return this.used.every(Boolean);
  }
}

/** An account's signers for threshold checks: the master key (if its weight is not 0) plus its signers. */
export function accountSigners(acc: AccountRecord): Signer[] {
  const out: Signer[] = [];
  if (acc.thresholds[0] > 0) {
    out.push({ type: 0, keyHex: accountKeyHex(acc.id), weight: acc.thresholds[0] });
  }
  for (const s of acc.signers) out.push({ type: s.type, keyHex: s.keyHex, payloadHex: s.payloadHex, weight: s.weight });
  return out;
}

/** The master key alone, weight 1: how an operation source that does not exist yet must sign. */
export function masterKeyOnly(accountId: string): Signer[] {
  return [{ type: 0, keyHex: accountKeyHex(accountId), weight: 1 }];
}

function accountKeyHex(id: string): string {
  return Buffer.from(StrKey.decodeEd25519PublicKey(id)).toString('hex');
}
