import { test } from 'node:test';
import assert from 'node:assert/strict';
import { displayPrefixOf, generateApiKey, hashApiKey, KEY_RANDOM_LENGTH } from './apiKeys';
import { parseApiKey } from './keyFormat';
import { newId } from '../ids';

test('generated keys have the spec form, with the type and network of the prefix', () => {
  for (const type of ['secret', 'publishable'] as const) {
    for (const network of ['testnet', 'mainnet'] as const) {
      const key = generateApiKey(type, network);
      assert.deepEqual(parseApiKey(key), { type, network, raw: key });
      assert.equal(key.length, `${type === 'secret' ? 'sec' : 'pub'}_${network}_`.length + KEY_RANDOM_LENGTH);
    }
  }
  assert.notEqual(generateApiKey('secret', 'testnet'), generateApiKey('secret', 'testnet'));
});

test('hash is hex SHA-256 of the whole key; display prefix keeps four random characters', () => {
  const key = 'sec_testnet_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789ABCD';
  assert.equal(hashApiKey(key), hashApiKey(key));
  assert.match(hashApiKey(key), /^[0-9a-f]{64}$/);
  assert.notEqual(hashApiKey(key), hashApiKey(key.replace('sec_', 'pub_')));
  assert.equal(displayPrefixOf(key), 'sec_testnet_AbCd');
});

test('ids: prefix + 22 base62 characters', () => {
  for (const prefix of ['op', 'app', 'key'] as const)
    assert.match(newId(prefix), new RegExp(`^${prefix}_[0-9A-Za-z]{22}$`));
  const ids = new Set(Array.from({ length: 1000 }, () => newId('app')));
  assert.equal(ids.size, 1000);
});
