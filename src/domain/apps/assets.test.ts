import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assetsFieldErrors } from './assets';

// A real account id (valid checksum) and the same with its last character changed (bad checksum).
const ISSUER = 'GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5';
const BAD_CHECKSUM = 'GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA6';

test('issued assets with a valid issuer are accepted', () => {
  assert.deepEqual(
    assetsFieldErrors([`USDC:${ISSUER}`, `EURC:${ISSUER}`, `A:${ISSUER}`, `ABCDEFGHIJKL:${ISSUER}`]),
    {},
  );
  assert.deepEqual(assetsFieldErrors([]), {});
});

test('an issuer with a bad checksum is refused, keyed by its index', () => {
  assert.deepEqual(Object.keys(assetsFieldErrors([`USDC:${ISSUER}`, `USDC:${BAD_CHECKSUM}`])), ['assets.1']);
});

test('native, malformed and duplicate entries are refused', () => {
  assert.deepEqual(Object.keys(assetsFieldErrors(['native'])), ['assets.0']);
  assert.deepEqual(Object.keys(assetsFieldErrors([`USDC${ISSUER}`])), ['assets.0']);
  assert.deepEqual(Object.keys(assetsFieldErrors([`TOOLONGCODE13:${ISSUER}`])), ['assets.0']);
  assert.deepEqual(assetsFieldErrors([`USDC:${ISSUER}`, `USDC:${ISSUER}`]), { 'assets.1': ['is listed twice'] });
});
