// Apps' OAuth client secrets at rest: AES-256-GCM under a key derived from the service secret, so the database alone
// never yields a secret. The app and provider are the additional authenticated data: a sealed secret copied to another
// app's row (or another provider's) does not open.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { ServiceSecrets } from '../../infra/secrets/serviceSecret';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

type Secrets = Pick<ServiceSecrets, 'derive'>;

function aad(appId: string, provider: string): Buffer {
  return Buffer.from(JSON.stringify(['oauth-client-secret', appId, provider]), 'utf8');
}

/** nonce || tag || ciphertext of `secret`, bound to (appId, provider). */
export function sealClientSecret(secrets: Secrets, ctx: { appId: string; provider: string }, secret: string): Buffer {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', secrets.derive('oauth-client-secret'), nonce).setAAD(
    aad(ctx.appId, ctx.provider),
  );
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return Buffer.concat([nonce, cipher.getAuthTag(), ciphertext]);
}

/** The secret sealed by sealClientSecret for the same (appId, provider); throws when the blob was altered or moved. */
export function openClientSecret(secrets: Secrets, ctx: { appId: string; provider: string }, sealed: Buffer): string {
  const decipher = createDecipheriv(
    'aes-256-gcm',
    secrets.derive('oauth-client-secret'),
    sealed.subarray(0, NONCE_BYTES),
  )
    .setAAD(aad(ctx.appId, ctx.provider))
    .setAuthTag(sealed.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(sealed.subarray(NONCE_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}
