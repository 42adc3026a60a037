// Local key management (the default of `make run` and the tests): a 256-bit master key in a file beside the embedded
// database, created on first start with mode 0600. Data keys are random 256-bit keys wrapped with AES-256-GCM under
// the master key, the encryption context as AAD. The service refuses to start when the file is open to group or
// others (it would silently expose every wallet) rather than fixing the mode behind the operator's back.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { open, seal } from './aesGcm';
import { contextBytes, KmsConfigError, KmsDecryptError, type KeyManagement } from './keyManagement';

const KEY_BYTES = 32;

function createMasterKeyFile(file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  try {
    // wx: never overwrite a key another process wrote in the meantime
    writeFileSync(file, randomBytes(KEY_BYTES).toString('base64url') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

function readMasterKey(file: string): Buffer {
  const mode = statSync(file).mode & 0o777;
  if (mode & 0o077) {
    throw new KmsConfigError(
      `the master key file ${file} is open to group or others (mode ${mode.toString(8).padStart(4, '0')}); run chmod 600 ${file}`,
    );
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
  if (key.length !== KEY_BYTES)
    throw new KmsConfigError(`the master key file ${file} does not hold a ${KEY_BYTES}-byte key`);
  return key;
}

/** The key management over the master key in `file` (created when missing); KmsConfigError when it is unusable. */
export function openLocalKms(file: string): KeyManagement {
  if (!existsSync(file)) createMasterKeyFile(file);
  const masterKey = readMasterKey(file);
  // Names the master key without revealing it, so a data key wrapped under another master key is told apart.
  const keyId = `local:${createHash('sha256').update(masterKey).digest('hex').slice(0, 16)}`;
  return {
    description: `local master key ${file} (${keyId})`,
    async generateDataKey(context) {
      const plaintext = randomBytes(KEY_BYTES);
      return { plaintext, ciphertext: seal(masterKey, plaintext, contextBytes(context)), keyId };
    },
    async decrypt(wrapped, context) {
      if (wrapped.keyId !== keyId) {
        throw new KmsDecryptError(
          `the data key was wrapped under master key ${wrapped.keyId}; this service holds ${keyId}`,
        );
      }
      const plaintext = open(masterKey, wrapped.ciphertext, contextBytes(context));
      if (!plaintext) throw new KmsDecryptError('the data key does not open under this encryption context');
      return plaintext;
    },
  };
}
