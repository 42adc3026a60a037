import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { projectRoot } from '../../paths';
import { KmsConfigError, KmsDecryptError, type EncryptionContext } from './keyManagement';
import { openLocalKms } from './localKms';

const context: EncryptionContext = { appId: 'app_A', walletId: 'wal_A', network: 'testnet' };

function keyFile(): string {
  return join(mkdtempSync(join(tmpdir(), 'onboard-kms-')), 'nested', 'master-key');
}

describe('local key management', () => {
  test('creates a 256-bit master key file with mode 0600 on first use, and reuses it after', async () => {
    const file = keyFile();
    const kms = openLocalKms(file);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url').length, 32);
    const { ciphertext, keyId, plaintext } = await kms.generateDataKey(context);
    // Reopened (a restart): the same master key unwraps what the first instance wrapped.
    assert.deepEqual(await openLocalKms(file).decrypt({ ciphertext, keyId }, context), plaintext);
    assert.match(kms.description, new RegExp(`^local master key ${file} \\(local:[0-9a-f]{16}\\)$`));
  });

  test('a data key is 32 random bytes, wrapped (not stored in clear), and unwraps under its own context', async () => {
    const kms = openLocalKms(keyFile());
    const a = await kms.generateDataKey(context);
    const b = await kms.generateDataKey(context);
    assert.equal(a.plaintext.length, 32);
    assert.notDeepEqual(a.plaintext, b.plaintext);
    assert.equal(a.ciphertext.includes(a.plaintext), false);
    assert.deepEqual(await kms.decrypt(a, context), a.plaintext);
  });

  test('any other context, another master key, or altered bytes are refused', async () => {
    const kms = openLocalKms(keyFile());
    const wrapped = await kms.generateDataKey(context);
    for (const other of [
      { ...context, walletId: 'wal_B' },
      { ...context, appId: 'app_B' },
      { ...context, network: 'mainnet' as const },
    ]) {
      await assert.rejects(kms.decrypt(wrapped, other), KmsDecryptError, JSON.stringify(other));
    }
    const altered = Buffer.from(wrapped.ciphertext);
    altered[altered.length - 1]! ^= 1;
    await assert.rejects(kms.decrypt({ ciphertext: altered, keyId: wrapped.keyId }, context), KmsDecryptError);
    const otherKms = openLocalKms(keyFile());
    await assert.rejects(otherKms.decrypt(wrapped, context), /wrapped under master key local:/);
  });

  test('refuses to start when the master key file is open to group or others, or is not a key', () => {
    const file = keyFile();
    openLocalKms(file);
    for (const mode of [0o640, 0o604, 0o660, 0o644]) {
      chmodSync(file, mode);
      assert.throws(
        () => openLocalKms(file),
        (e: unknown) => e instanceof KmsConfigError && /chmod 600/.test(e.message),
        mode.toString(8),
      );
    }
    chmodSync(file, 0o600);
    writeFileSync(file, 'too short\n');
    assert.throws(
      () => openLocalKms(file),
      (e: unknown) => e instanceof KmsConfigError && /32-byte key/.test(e.message),
    );
  });
});

test('the service refuses to start (exit 2, a configuration error) on a master key file open to others', () => {
  const file = keyFile();
  openLocalKms(file);
  chmodSync(file, 0o644);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ONBOARD_DATA_DIR: dirname(file),
    LOCALNET: 'off',
    DEMO_SEED: 'off',
    LOG_LEVEL: 'silent',
    KMS_PROVIDER: 'local',
  };
  const run = spawnSync(join(projectRoot, 'node_modules/.bin/tsx'), ['src/main.ts'], {
    cwd: projectRoot,
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /^configuration error: the master key file .* is open to group or others \(mode 0644\)/m);
});
