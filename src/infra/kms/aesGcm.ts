// AES-256-GCM with a random 96-bit IV per message, as one self-describing blob: version (1) | IV (12) | tag (16) |
// ciphertext. Used to wrap data keys under the local master key and to encrypt wallet secrets under their data key.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + IV_BYTES + TAG_BYTES;

export function seal(key: Buffer, plaintext: Uint8Array, aad: Buffer): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.of(VERSION), iv, cipher.getAuthTag(), ciphertext]);
}

/** The plaintext, or undefined when the blob was not sealed with this key and AAD (or was altered). */
export function open(key: Buffer, sealed: Buffer, aad: Buffer): Buffer | undefined {
  if (sealed.length < HEADER_BYTES || sealed[0] !== VERSION) return undefined;
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(1, 1 + IV_BYTES)).setAAD(aad);
  decipher.setAuthTag(sealed.subarray(1 + IV_BYTES, HEADER_BYTES));
  // GCM hands out the plaintext before the tag is checked: one buffer, zeroed when the check fails, and no copies
  // (a concat would leave the plaintext in an unreachable, unzeroed buffer).
  const plaintext = decipher.update(sealed.subarray(HEADER_BYTES));
  try {
    decipher.final();
    return plaintext;
  } catch {
    plaintext.fill(0);
    return undefined;
  }
}
