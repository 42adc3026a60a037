// SEP-24 pricing (src/domain/ramps/sep24Amounts.ts) on its own: the fee rounding, the smallest amount_in that reaches
// a target (checked against every neighbour by property), the bounds, and reading /info amounts without floats.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  amountInFor,
  CENT,
  feeOn,
  priceSep24,
  readTermsAmount,
  type Sep24Terms,
} from '../../src/domain/ramps/sep24Amounts';
import { toStroops } from '../../src/domain/money/amounts';

const terms = (t: Partial<Record<keyof Sep24Terms, string>>): Sep24Terms => ({
  feeFixed: toStroops(t.feeFixed ?? '0'),
  feePercent: toStroops(t.feePercent ?? '0'),
  feeMinimum: toStroops(t.feeMinimum ?? '0'),
  ...(t.min !== undefined ? { min: toStroops(t.min) } : {}),
  ...(t.max !== undefined ? { max: toStroops(t.max) } : {}),
});

describe('SEP-24 pricing', () => {
  test('the fee: fixed + percent, at least the minimum, rounded up to the cent', () => {
    assert.equal(feeOn(toStroops('100'), terms({ feeFixed: '1', feePercent: '1.5' })), toStroops('2.5'));
    assert.equal(feeOn(toStroops('0.1'), terms({ feePercent: '0.1' })), toStroops('0.01'));
    assert.equal(feeOn(toStroops('10'), terms({ feePercent: '1', feeMinimum: '5' })), toStroops('5'));
    assert.equal(feeOn(toStroops('10'), terms({})), 0n);
  });

  test('amountInFor is the smallest whole-cent amount that leaves the target (property)', () => {
    const arbitraryTerms = fc.record({
      feeFixed: fc.bigInt({ min: 0n, max: 100_000_000n }),
      feePercent: fc.bigInt({ min: 0n, max: 990_000_000n }), // up to 99 %
      feeMinimum: fc.bigInt({ min: 0n, max: 100_000_000n }),
    });
    fc.assert(
      fc.property(arbitraryTerms, fc.bigInt({ min: 1n, max: 10_000_000_000_000n }), (t, net) => {
        const x = amountInFor(net, t);
        assert.equal(x % CENT, 0n);
        assert.ok(x - feeOn(x, t) >= net, 'reaches the target');
        assert.ok(x === CENT || x - CENT - feeOn(x - CENT, t) < net, 'one cent less does not');
      }),
    );
  });

  test('priced legs keep fiat - fee = crypto (on) and fiat = crypto - fee down to the cent (off)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('on' as const, 'off' as const),
        fc.constantFrom('fiat' as const, 'crypto' as const),
        fc.bigInt({ min: 1n, max: 100_000_000_000n }),
        (direction, amountIn, amount) => {
          const t = terms({ feeFixed: '0.3', feePercent: '2.9' });
          const price = priceSep24(direction, amountIn, amount, t);
          if (price.kind !== 'priced') return;
          assert.equal(price.fiat % CENT, 0n);
          if (direction === 'on') assert.equal(price.fiat - price.fee, price.crypto);
          else assert.equal(price.fiat, ((price.crypto - price.fee) / CENT) * CENT);
        },
      ),
    );
  });

  test('bounds: an amount too small for the fee is below the minimum that pays out a cent', () => {
    const t = terms({ feeFixed: '5' });
    assert.deepEqual(priceSep24('on', 'fiat', toStroops('4'), t), {
      kind: 'out_of_range',
      limit: 'min',
      limitAmount: toStroops('5.01'),
    });
    const bounded = terms({ min: '0.015', max: '99.999' });
    const priced = priceSep24('off', 'crypto', toStroops('50'), bounded);
    assert.equal(priced.kind, 'priced');
    assert.deepEqual(priced.kind === 'priced' ? [priced.minAmount, priced.maxAmount] : [], [
      toStroops('0.02'),
      toStroops('99.99'),
    ]);
  });

  test('/info amounts: JSON numbers through their decimal rendering, decimal strings exactly, anything else refused', () => {
    assert.equal(readTermsAmount(0.1), toStroops('0.1'));
    assert.equal(readTermsAmount(1000), toStroops('1000'));
    assert.equal(readTermsAmount(0.0000001), 1n);
    assert.equal(readTermsAmount('12.3456789'), toStroops('12.3456789'));
    assert.equal(readTermsAmount(undefined), undefined);
    assert.equal(readTermsAmount(null), undefined);
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY, 1e20, '1e3', '-1', '1.23456789', '', true, {}, []])
      assert.throws(() => readTermsAmount(bad), /is not an amount/, JSON.stringify(bad));
  });
});
