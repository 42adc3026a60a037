// A Stellar keypair that derives its public key and signs with Node's own Ed25519 (OpenSSL) instead of the SDK's
// JavaScript one (@noble/ed25519). Every custodial signature pays both: about 1.1 ms in JavaScript against 0.25 ms
// natively on this project's machines, on the request's own thread. Ed25519 signatures are deterministic (RFC 8032),
// so the bytes are the SDK's; the unit test holds it to that. Written here because no library wraps a node:crypto
// key as an SDK Keypair: it subclasses the SDK's, so transactions, fee-bumps and auth entries sign through it as usual.
import { createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { Keypair, StrKey } from '@stellar/stellar-sdk';

/** The PKCS#8 DER header of an Ed25519 private key (RFC 8410): the 32-byte seed follows it. */
const PKCS8_ED25519_HEADER = Buffer.from('302e020100300506032b657004220420', 'hex');

export class NativeKeypair extends Keypair {
  #privateKey: KeyObject | undefined;
  readonly #seed: Buffer;

  private constructor(publicKey: Buffer, privateKey: KeyObject, seed: Buffer) {
    super({ type: 'ed25519', publicKey });
    this.#privateKey = privateKey;
    this.#seed = seed;
  }

  /** The keypair of a 32-byte Ed25519 seed, which it copies (the caller zeroes its own). */
  static fromSeed(seed: Uint8Array): NativeKeypair {
    if (seed.length !== 32) throw new RangeError('an Ed25519 seed is 32 bytes');
    const der = Buffer.concat([PKCS8_ED25519_HEADER, seed]);
    try {
      const privateKey = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
      const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
      return new NativeKeypair(spki.subarray(spki.length - 32), privateKey, Buffer.from(seed));
    } finally {
      der.fill(0);
    }
  }

  override canSign(): boolean {
    return this.#privateKey !== undefined;
  }

  override sign(data: Uint8Array): Uint8Array {
    if (!this.#privateKey) throw new Error('cannot sign: the keypair was wiped');
    return sign(null, data, this.#privateKey);
  }

  override rawSecretKey(): Uint8Array {
    return this.#seed;
  }

  override secret(): string {
    if (!this.#privateKey) throw new Error('no secret key available: the keypair was wiped');
    return StrKey.encodeEd25519SecretSeed(this.#seed);
  }

  /**
   * Zeroes the seed and lets go of the native key, so the keypair cannot sign any more. (OpenSSL clears the key's
   * own memory when it is freed.)
   */
  wipe(): void {
    this.#seed.fill(0);
    this.#privateKey = undefined;
  }
}
