// Secrets the service must read back (apps' OAuth client secrets, webhook signing secrets), at rest: AES-256-GCM under
// a key derived from the service secret for one purpose, so the database alone never yields a secret. The context
// (e.g. the app id) is the additional authenticated data: a sealed value copied to another row does not open.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { ServiceSecrets } from '../../infra/secrets/serviceSecret';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export type Sealer = Pick<ServiceSecrets, 'derive'>;

function aad(purpose: string, context: string[]): Buffer {
  return Buffer.from(JSON.stringify([purpose, ...context]), 'utf8');
}

/** nonce || tag || ciphertext of `plaintext`, bound to `purpose` and `context`. */
export function seal(secrets: Sealer, purpose: string, context: string[], plaintext: string): Buffer {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', secrets.derive(purpose), nonce).setAAD(aad(purpose, context));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([nonce, cipher.getAuthTag(), ciphertext]);
}

/** What seal() sealed for the same purpose and context; throws when the blob was altered or moved. */
export function unseal(secrets: Sealer, purpose: string, context: string[], sealed: Buffer): string {
  const decipher = createDecipheriv('aes-256-gcm', secrets.derive(purpose), sealed.subarray(0, NONCE_BYTES))
    .setAAD(aad(purpose, context))
    .setAuthTag(sealed.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(sealed.subarray(NONCE_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}
