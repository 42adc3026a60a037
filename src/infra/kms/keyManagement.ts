// Envelope encryption (AWS KMS style): every wallet gets its own 256-bit data key; the secret is encrypted locally
// with it, and only the data key's wrapped form (encrypted under a master key that never leaves the KMS or the master
// key file) is stored beside the ciphertext. The encryption context is bound to the wrapped key, so a wrapped key
// copied to another wallet's row does not decrypt. The context is logged in clear by AWS: it must hold no secret.
import type { NetworkName } from '../../config';

/** Which wallet a data key belongs to; required, unchanged, to unwrap it. */
export interface EncryptionContext {
  appId: string;
  walletId: string;
  network: NetworkName;
}

export interface DataKey {
  /** The 32-byte key in clear: use it at once, then zero it (`fill(0)`). */
  plaintext: Buffer;
  /** The key wrapped under the master key: what is stored. */
  ciphertext: Buffer;
  /** The master key that wrapped it (an AWS key ARN, or `local:<fingerprint>`). */
  keyId: string;
}

export interface KeyManagement {
  /** What holds the master key, for the start-up banner. */
  readonly description: string;
  /** A fresh AES-256 data key, in clear and wrapped for `context`. */
  generateDataKey(context: EncryptionContext): Promise<DataKey>;
  /** The data key in clear (zero it after use); KmsDecryptError unless `context` and `keyId` are the ones it was made for. */
  decrypt(wrapped: { ciphertext: Buffer; keyId: string }, context: EncryptionContext): Promise<Buffer>;
}

/** The key management cannot start as configured (e.g. a master key file others can read): a configuration error. */
export class KmsConfigError extends Error {}

/** A wrapped key that does not open: another wallet's context, another master key, or altered bytes. */
export class KmsDecryptError extends Error {}

/** The context as AAD bytes: fixed member order, so the same context always gives the same bytes. */
export function contextBytes(context: EncryptionContext): Buffer {
  return Buffer.from(
    JSON.stringify({ appId: context.appId, walletId: context.walletId, network: context.network }),
    'utf8',
  );
}
