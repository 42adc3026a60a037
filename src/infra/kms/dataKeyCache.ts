// A bounded cache of unwrapped data keys in front of the key management, as the AWS Encryption SDK's caching
// materials manager does: an entry is used at most `maxUses` times and for at most `maxAgeMs`, and at most
// `maxEntries` are held (the least recently used goes first). With AWS KMS every signature would otherwise wait for a
// Decrypt call (tens of milliseconds, and a request against the account's KMS quota); a wallet that signs a burst
// (a game paying out, a distribution) unwraps once per burst instead.
//
// What stays exact: an entry is found only by the wrapped key's bytes, its master key id and the whole encryption
// context, so a wrapped key never opens under another wallet's context through the cache; a failed unwrap is never
// cached; every use is still audited by the caller (src/domain/wallets/custody.ts records `key.decrypt` per use);
// callers get a copy they zero, and an entry's own copy is zeroed when it leaves the cache.
import { createHash } from 'node:crypto';
import type { DataKeyCacheSettings } from '../../config';
import { contextBytes, type EncryptionContext, type KeyManagement } from './keyManagement';

interface Entry {
  plaintext: Buffer;
  loadedAtMs: number;
  uses: number;
}

export function withDataKeyCache(
  inner: KeyManagement,
  settings: DataKeyCacheSettings,
  nowMs: () => number = Date.now,
): KeyManagement {
  if (settings.maxAgeMs <= 0 || settings.maxUses <= 0 || settings.maxEntries <= 0) return inner;
  const entries = new Map<string, Entry>();
  // Concurrent first uses of one key share one unwrap.
  const loading = new Map<string, Promise<Buffer>>();

  const drop = (id: string) => {
    entries.get(id)?.plaintext.fill(0);
    entries.delete(id);
  };

  function cacheId(wrapped: { ciphertext: Buffer; keyId: string }, context: EncryptionContext): string {
    return createHash('sha256')
      .update(wrapped.keyId)
      .update('\0')
      .update(contextBytes(context))
      .update('\0')
      .update(wrapped.ciphertext)
      .digest('base64url');
  }

  async function decrypt(wrapped: { ciphertext: Buffer; keyId: string }, context: EncryptionContext): Promise<Buffer> {
    const id = cacheId(wrapped, context);
    const hit = entries.get(id);
    if (hit) {
      if (nowMs() - hit.loadedAtMs < settings.maxAgeMs && hit.uses < settings.maxUses) {
        hit.uses += 1;
        entries.delete(id); // most recently used last
        entries.set(id, hit);
        return Buffer.from(hit.plaintext);
      }
      drop(id);
    }
    let pending = loading.get(id);
    if (!pending) {
      pending = inner.decrypt(wrapped, context).finally(() => loading.delete(id));
      loading.set(id, pending);
      pending.then(
        (plaintext) => {
          entries.set(id, { plaintext: Buffer.from(plaintext), loadedAtMs: nowMs(), uses: 0 });
          if (entries.size > settings.maxEntries) drop(entries.keys().next().value!);
          // Every caller waiting on this unwrap has taken its copy by then (they resume before any macrotask).
          setImmediate(() => plaintext.fill(0));
        },
        () => undefined,
      );
    }
    const plaintext = await pending;
    // Each caller gets (and zeroes) its own copy; each counts as a use of the entry.
    const entry = entries.get(id);
    if (entry) entry.uses += 1;
    return Buffer.from(plaintext);
  }

  return {
    description: `${inner.description}; unwrapped data keys cached up to ${settings.maxAgeMs / 1000} s or ${settings.maxUses} uses`,
    generateDataKey: (context) => inner.generateDataKey(context),
    decrypt,
  };
}
