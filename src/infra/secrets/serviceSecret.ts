// The service secret: one random 32-byte value from which every server-side key is derived with HKDF-SHA256 and a
// purpose label (the access-token signing key, DPoP nonces, email-code hashes, OAuth state...). Deriving instead of
// storing several keys means one value to provision and rotate, and no key material in the database: a database leak
// alone cannot forge a token or brute-force a hashed email code.
//
// Where it comes from: ONBOARD_SECRET (base64url or hex, at least 32 bytes) when set, which every instance of a
// scaled-out deployment must share; otherwise `<dataDir>/service-secret`, created on first start with mode 0600
// (the embedded default of `make run`, like the local master key).
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hkdfSync, randomBytes } from 'node:crypto';
import { dirname } from 'node:path';

export interface ServiceSecrets {
  /** A 32-byte key for one purpose; the same purpose always gives the same key. */
  derive(purpose: string): Buffer;
  /** Where the secret came from, for the banner: `ONBOARD_SECRET` or the file's path. */
  source: string;
}

const MIN_BYTES = 32;

function decode(value: string): Buffer | undefined {
  const trimmed = value.trim();
  if (/^[0-9a-fA-F]+$/.test(trimmed) && trimmed.length % 2 === 0) return Buffer.from(trimmed, 'hex');
  if (/^[A-Za-z0-9_-]+$/.test(trimmed)) return Buffer.from(trimmed, 'base64url');
  return undefined;
}

export class ServiceSecretError extends Error {}

export function secretsFromBytes(secret: Buffer, source: string): ServiceSecrets {
  if (secret.length < MIN_BYTES) throw new ServiceSecretError(`the service secret must be at least ${MIN_BYTES} bytes`);
  const cache = new Map<string, Buffer>();
  return {
    source,
    derive(purpose) {
      let key = cache.get(purpose);
      if (!key) {
        key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `onboard:${purpose}`, 32));
        cache.set(purpose, key);
      }
      return key;
    },
  };
}

/** The service secret from ONBOARD_SECRET, or from (or newly into) `file`. */
export function loadServiceSecrets(opts: { envValue?: string; file: string }): ServiceSecrets {
  if (opts.envValue) {
    const bytes = decode(opts.envValue);
    if (!bytes || bytes.length < MIN_BYTES) {
      throw new ServiceSecretError(`ONBOARD_SECRET must be at least ${MIN_BYTES} bytes, as hex or base64url`);
    }
    return secretsFromBytes(bytes, 'ONBOARD_SECRET');
  }
  if (!existsSync(opts.file)) {
    mkdirSync(dirname(opts.file), { recursive: true });
    // wx: never overwrite a secret another process wrote in the meantime
    try {
      writeFileSync(opts.file, randomBytes(MIN_BYTES).toString('base64url') + '\n', { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  chmodSync(opts.file, 0o600);
  const bytes = decode(readFileSync(opts.file, 'utf8'));
  if (!bytes || bytes.length < MIN_BYTES)
    throw new ServiceSecretError(`${opts.file} does not hold a ${MIN_BYTES}-byte secret`);
  return secretsFromBytes(bytes, opts.file);
}
