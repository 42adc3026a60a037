// Apps' OAuth client secrets at rest, sealed under the `oauth-client-secret` purpose (domain/secrets/sealed.ts) and
// bound to the app and provider: a sealed secret copied to another app's row (or another provider's) does not open.
import { seal, unseal, type Sealer } from '../secrets/sealed';

const PURPOSE = 'oauth-client-secret';

/** nonce || tag || ciphertext of `secret`, bound to (appId, provider). */
export function sealClientSecret(secrets: Sealer, ctx: { appId: string; provider: string }, secret: string): Buffer {
  return seal(secrets, PURPOSE, [ctx.appId, ctx.provider], secret);
}

/** The secret sealed by sealClientSecret for the same (appId, provider); throws when the blob was altered or moved. */
export function openClientSecret(secrets: Sealer, ctx: { appId: string; provider: string }, sealed: Buffer): string {
  return unseal(secrets, PURPOSE, [ctx.appId, ctx.provider], sealed);
}
