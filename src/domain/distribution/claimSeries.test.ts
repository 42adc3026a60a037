import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fillSeries, seriesDates, type RuleDayCount } from './claimSeries';

const row = (ruleId: string, day: string, count: number): RuleDayCount => ({
  ruleId,
  name: `Rule ${ruleId}`,
  asset: 'native',
  day,
  count,
});

describe('seriesDates', () => {
  test('the last n UTC days, oldest first, today last, whatever the time of day', () => {
    assert.deepEqual(seriesDates(3, new Date('2026-11-21T00:00:00.000Z')), ['2026-11-19', '2026-11-20', '2026-11-21']);
    assert.deepEqual(seriesDates(3, new Date('2026-11-21T23:59:59.999Z')), ['2026-11-19', '2026-11-20', '2026-11-21']);
    assert.deepEqual(seriesDates(1, new Date('2026-11-21T12:00:00.000Z')), ['2026-11-21']);
  });

  test('across a month, a leap day and a year; 90 days are 90 distinct consecutive dates', () => {
    assert.deepEqual(seriesDates(3, new Date('2028-03-01T08:00:00.000Z')), ['2028-02-28', '2028-02-29', '2028-03-01']);
    assert.deepEqual(seriesDates(2, new Date('2027-01-01T08:00:00.000Z')), ['2026-12-31', '2027-01-01']);
    const ninety = seriesDates(90, new Date('2026-11-21T12:00:00.000Z'));
    assert.equal(ninety.length, 90);
    assert.equal(new Set(ninety).size, 90);
    assert.equal(ninety[0], '2026-08-24');
    assert.equal(ninety.at(-1), '2026-11-21');
    assert.deepEqual([...ninety].sort(), ninety);
  });
});

describe('fillSeries', () => {
  const dates = ['2026-11-19', '2026-11-20', '2026-11-21'];

  test('no rows: no rules', () => {
    assert.deepEqual(fillSeries(dates, []), []);
  });

  test('each rule in the order the rows name it, its counts on their dates, 0 elsewhere', () => {
    const rules = fillSeries(dates, [
      row('b', '2026-11-20', 14),
      row('b', '2026-11-21', 9),
      row('a', '2026-11-19', 1),
      row('a', '2026-11-21', 2),
    ]);
    assert.deepEqual(rules, [
      { ruleId: 'b', name: 'Rule b', asset: 'native', claims: [0, 14, 9] },
      { ruleId: 'a', name: 'Rule a', asset: 'native', claims: [1, 0, 2] },
    ]);
  });

  test('a day outside the grid is not counted; rows of one rule and day add up', () => {
    const rules = fillSeries(dates, [row('a', '2026-11-18', 5), row('a', '2026-11-20', 1), row('a', '2026-11-20', 2)]);
    assert.deepEqual(rules[0]?.claims, [0, 3, 0]);
  });
});
