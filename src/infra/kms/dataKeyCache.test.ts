// The data-key cache in front of the local key management: bounded by uses, age and entries, keyed by the whole
// encryption context (a wrapped key never opens under another wallet's context through it), failures never kept,
// concurrent first uses sharing one unwrap, and callers given copies they may zero.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KmsDecryptError, type EncryptionContext, type KeyManagement } from './keyManagement';
import { openLocalKms } from './localKms';
import { withDataKeyCache } from './dataKeyCache';

const contextA: EncryptionContext = { appId: 'app_A', walletId: 'wal_A', network: 'testnet' };
const contextB: EncryptionContext = { appId: 'app_A', walletId: 'wal_B', network: 'testnet' };

/** The local key management, counting the unwraps that reach it. */
function countingKms(): KeyManagement & { unwraps: number } {
  const inner = openLocalKms(join(mkdtempSync(join(tmpdir(), 'onboard-kms-cache-')), 'master-key'));
  const counted = {
    unwraps: 0,
    description: inner.description,
    generateDataKey: (c: EncryptionContext) => inner.generateDataKey(c),
    decrypt: (w: { ciphertext: Buffer; keyId: string }, c: EncryptionContext) => {
      counted.unwraps += 1;
      return inner.decrypt(w, c);
    },
  };
  return counted;
}

describe('the data-key cache', () => {
  test('a key used again within its bounds is unwrapped once; callers get copies they may zero', async () => {
    const kms = countingKms();
    const cached = withDataKeyCache(kms, { maxAgeMs: 60_000, maxUses: 10, maxEntries: 10 });
    const { ciphertext, keyId, plaintext } = await kms.generateDataKey(contextA);
    for (let i = 0; i < 5; i++) {
      const key = await cached.decrypt({ ciphertext, keyId }, contextA);
      assert.deepEqual(key, plaintext);
      key.fill(0); // as custody does: must not reach the cached copy
    }
    assert.equal(kms.unwraps, 1);
  });

  test('max uses: the entry is unwrapped again after maxUses uses', async () => {
    const kms = countingKms();
    const cached = withDataKeyCache(kms, { maxAgeMs: 60_000, maxUses: 3, maxEntries: 10 });
    const wrapped = await kms.generateDataKey(contextA);
    for (let i = 0; i < 7; i++) await cached.decrypt(wrapped, contextA);
    assert.equal(kms.unwraps, 3); // uses 1-3, 4-6, 7
  });

  test('max age: an entry older than maxAgeMs is unwrapped again', async () => {
    const kms = countingKms();
    let now = 1_000_000;
    const cached = withDataKeyCache(kms, { maxAgeMs: 1_000, maxUses: 100, maxEntries: 10 }, () => now);
    const wrapped = await kms.generateDataKey(contextA);
    await cached.decrypt(wrapped, contextA);
    now += 999;
    await cached.decrypt(wrapped, contextA);
    assert.equal(kms.unwraps, 1);
    now += 1;
    await cached.decrypt(wrapped, contextA);
    assert.equal(kms.unwraps, 2);
  });

  test('max entries: the least recently used key leaves first', async () => {
    const kms = countingKms();
    const cached = withDataKeyCache(kms, { maxAgeMs: 60_000, maxUses: 100, maxEntries: 2 });
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => kms.generateDataKey(contextA)));
    await cached.decrypt(a!, contextA);
    await cached.decrypt(b!, contextA);
    await cached.decrypt(a!, contextA); // a is now the most recent
    await cached.decrypt(c!, contextA); // b leaves
    assert.equal(kms.unwraps, 3);
    await cached.decrypt(a!, contextA);
    assert.equal(kms.unwraps, 3);
    await cached.decrypt(b!, contextA);
    assert.equal(kms.unwraps, 4);
  });

  test("another wallet's context never opens a cached key, and a failed unwrap is not kept", async () => {
    const kms = countingKms();
    const cached = withDataKeyCache(kms, { maxAgeMs: 60_000, maxUses: 100, maxEntries: 10 });
    const wrapped = await kms.generateDataKey(contextA);
    await cached.decrypt(wrapped, contextA);
    for (let i = 0; i < 2; i++) await assert.rejects(cached.decrypt(wrapped, contextB), KmsDecryptError);
    assert.equal(kms.unwraps, 3, 'each refused attempt reached the key management');
  });

  test('concurrent first uses share one unwrap', async () => {
    const kms = countingKms();
    const cached = withDataKeyCache(kms, { maxAgeMs: 60_000, maxUses: 100, maxEntries: 10 });
    const wrapped = await kms.generateDataKey(contextA);
    const keys = await Promise.all(Array.from({ length: 10 }, () => cached.decrypt(wrapped, contextA)));
    assert.equal(kms.unwraps, 1);
    for (const k of keys) assert.deepEqual(k, wrapped.plaintext);
  });

  test('0 s turns it off: every use unwraps', async () => {
    const kms = countingKms();
    const cached = withDataKeyCache(kms, { maxAgeMs: 0, maxUses: 100, maxEntries: 10 });
    const wrapped = await kms.generateDataKey(contextA);
    for (let i = 0; i < 3; i++) await cached.decrypt(wrapped, contextA);
    assert.equal(kms.unwraps, 3);
    assert.equal(cached, kms);
  });
});
