import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseApiKey } from './keyFormat';

const random = 'Ab3'.repeat(11);

test('prefix fixes type and network', () => {
  assert.deepEqual(parseApiKey(`pub_testnet_${random}`), {
    type: 'publishable',
    network: 'testnet',
    raw: `pub_testnet_${random}`,
  });
  assert.deepEqual(parseApiKey(`sec_mainnet_${random}`)?.type, 'secret');
  assert.deepEqual(parseApiKey(`sec_mainnet_${random}`)?.network, 'mainnet');
});

test('anything else is not a key', () => {
  for (const bad of [
    '',
    'sec_testnet_',
    `sek_testnet_${random}`,
    `sec_futurenet_${random}`,
    `sec_testnet_${random}!`,
    `sec_testnet_short`,
  ]) {
    assert.equal(parseApiKey(bad), undefined, bad);
  }
});
