// Example Stellar addresses in the contract must be real StrKeys (with a valid checksum): Prism serves them to
// frontend teams, and the service checks checksums.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StrKey } from '@stellar/stellar-sdk';
import { spec } from '../support/spec';

test('every G- and C-address in the bundle is a valid StrKey', () => {
  const invalid = new Set<string>();
  const walk = (node: unknown): void => {
    if (typeof node === 'string') {
      for (const m of node.matchAll(/\b([GC])[A-Z2-7]{55}\b/g)) {
        const ok = m[1] === 'G' ? StrKey.isValidEd25519PublicKey(m[0]) : StrKey.isValidContract(m[0]);
        if (!ok) invalid.add(m[0]);
      }
    } else if (node && typeof node === 'object') {
      for (const value of Object.values(node)) walk(value);
    }
  };
  walk(spec);
  assert.deepEqual([...invalid], []);
});
