import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalDecimal } from './store';

test("PostgreSQL numerics become the API's canonical decimal strings, exactly", () => {
  assert.equal(canonicalDecimal('0.0000000'), '0');
  assert.equal(canonicalDecimal('2.0000000'), '2');
  assert.equal(canonicalDecimal('2.5000000'), '2.5');
  assert.equal(canonicalDecimal('0.0000001'), '0.0000001');
  assert.equal(canonicalDecimal('100'), '100');
  assert.equal(canonicalDecimal('999999999999.9999999'), '999999999999.9999999');
});
