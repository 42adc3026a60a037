import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { secretsFromBytes } from '../../infra/secrets/serviceSecret';
import { openClientSecret, sealClientSecret } from './clientSecrets';

const secrets = secretsFromBytes(randomBytes(32), 'test');
const ctx = { appId: 'app_A', provider: 'google' };

test('a sealed client secret opens to itself and holds no clear text; each seal is different', () => {
  const secret = 'GOCSPX-0123456789abcdefghij';
  const sealed = sealClientSecret(secrets, ctx, secret);
  assert.equal(openClientSecret(secrets, ctx, sealed), secret);
  assert.equal(sealed.includes(Buffer.from(secret)), false);
  assert.notDeepEqual(sealClientSecret(secrets, ctx, secret), sealed, 'a fresh nonce per seal');
});

test('a sealed secret opens only for its app and provider, under the same service secret, unaltered', () => {
  const sealed = sealClientSecret(secrets, ctx, 'secret');
  assert.throws(() => openClientSecret(secrets, { appId: 'app_B', provider: 'google' }, sealed));
  assert.throws(() => openClientSecret(secrets, { appId: 'app_A', provider: 'github' }, sealed));
  assert.throws(() => openClientSecret(secretsFromBytes(randomBytes(32), 'other'), ctx, sealed));
  const altered = Buffer.from(sealed);
  altered[altered.length - 1]! ^= 1;
  assert.throws(() => openClientSecret(secrets, ctx, altered));
});
