import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { feeDistribution } from './feeStats';

describe('feeDistribution (stellar-rpc feewindow)', () => {
  test('no fees: all zeros, ledgerCount 0', () => {
    const d = feeDistribution([], 10);
    assert.equal(d.max, '0');
    assert.equal(d.p99, '0');
    assert.equal(d.transactionCount, '0');
    assert.equal(d.ledgerCount, 0);
  });

  test('nearest-rank percentiles, strings except ledgerCount', () => {
    const fees = Array.from({ length: 10 }, (_, i) => BigInt((i + 1) * 100));
    const d = feeDistribution(fees, 3);
    assert.equal(d.min, '100');
    assert.equal(d.max, '1000');
    assert.equal(d.p10, '100');
    assert.equal(d.p50, '500');
    assert.equal(d.p95, '1000');
    assert.equal(d.p99, '1000');
    assert.equal(d.transactionCount, '10');
    assert.equal(d.ledgerCount, 3);
  });

  test('mode is the longest run; a tie keeps the smaller fee', () => {
    assert.equal(feeDistribution([100n, 200n, 200n, 300n], 1).mode, '200');
    assert.equal(feeDistribution([100n, 100n, 200n, 200n], 1).mode, '100');
    assert.equal(feeDistribution([100n, 300n, 300n, 300n], 1).mode, '300');
    assert.equal(feeDistribution([500n], 1).mode, '500');
  });
});
