import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fromStroops, toStroops } from './amounts';

describe('XLM amounts', () => {
  test('decimal strings convert to exact stroops and back in canonical form', () => {
    for (const [xlm, stroops, canonical] of [
      ['0', 0n, '0'],
      ['1', 10_000_000n, '1'],
      ['2.5', 25_000_000n, '2.5'],
      ['0.0000001', 1n, '0.0000001'],
      ['9876.5432100', 98_765_432_100n, '9876.54321'],
      ['922337203685.4775807', 9_223_372_036_854_775_807n, '922337203685.4775807'],
    ] as const) {
      assert.equal(toStroops(xlm), stroops, xlm);
      assert.equal(fromStroops(stroops), canonical, xlm);
    }
  });

  test('0.1 + 0.2 is exactly 0.3 (no float on the way)', () => {
    assert.equal(fromStroops(toStroops('0.1') + toStroops('0.2')), '0.3');
  });

  test('negative stroops print with a sign (a shortfall)', () => {
    assert.equal(fromStroops(-15_000_000n), '-1.5');
  });

  test('malformed amounts are refused', () => {
    for (const bad of ['', '-1', '1.', '.5', '1.12345678', '1e3', ' 1', 'abc'])
      assert.throws(() => toStroops(bad), /not an XLM amount/, bad);
  });
});
