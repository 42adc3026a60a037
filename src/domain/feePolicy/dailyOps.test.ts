// Sponsored operations per user per UTC day on real PostgreSQL: reservations never overshoot the cap, even under
// concurrency; a refused reservation changes nothing; releases give operations back; days and users are apart; old
// days are pruned.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useMigratedDatabase } from '../../../tests/support/database';
import { opsUsedToday, pruneDailyOpCounts, releaseDailyOps, reserveDailyOps, utcDay } from './dailyOps';

const db = useMigratedDatabase();
const NOON = new Date('2030-06-15T12:00:00.000Z');
let counter = 0;
/** A distinct app and user per test, so tests do not share counts. */
const who = () => ({ appId: `app_dailyops_${++counter}`, userId: `usr_dailyops_${counter}` });

describe('daily operation counts', () => {
  test('utcDay is the UTC date, whatever the instant', () => {
    assert.equal(utcDay(new Date('2030-06-15T23:59:59.999Z')), '2030-06-15');
    assert.equal(utcDay(new Date('2030-06-16T00:00:00.000Z')), '2030-06-16');
    assert.equal(utcDay(new Date('2030-06-16T01:30:00.000+02:00')), '2030-06-15');
  });

  test('reserves up to the cap exactly; past it refuses and counts nothing', async () => {
    const u = who();
    assert.equal(await opsUsedToday(db, { ...u, at: NOON }), 0);
    assert.equal(await reserveDailyOps(db, { ...u, at: NOON, ops: 3, cap: 10 }), true);
    assert.equal(await reserveDailyOps(db, { ...u, at: NOON, ops: 6, cap: 10 }), true);
    assert.equal(await opsUsedToday(db, { ...u, at: NOON }), 9, 'cap - 1');
    assert.equal(await reserveDailyOps(db, { ...u, at: NOON, ops: 2, cap: 10 }), false, 'would be cap + 1');
    assert.equal(await opsUsedToday(db, { ...u, at: NOON }), 9, 'a refusal counts nothing');
    assert.equal(await reserveDailyOps(db, { ...u, at: NOON, ops: 1, cap: 10 }), true, 'exactly the cap');
    assert.equal(await opsUsedToday(db, { ...u, at: NOON }), 10);
    assert.equal(await reserveDailyOps(db, { ...u, at: NOON, ops: 1, cap: 10 }), false);
    assert.equal(await opsUsedToday(db, { ...u, at: NOON }), 10);
  });

  test('a first transaction larger than the cap is refused and leaves no row', async () => {
    const u = who();
    assert.equal(await reserveDailyOps(db, { ...u, at: NOON, ops: 11, cap: 10 }), false);
    assert.equal(
      await db('daily_op_counts')
        .where({ app_id: u.appId })
        .count<{ count: string }[]>({ count: '*' })
        .then((r) => Number(r[0]!.count)),
      0,
    );
    assert.equal(await reserveDailyOps(db, { ...u, at: NOON, ops: 10, cap: 10 }), true);
  });

  test('100 concurrent reservations of one operation against a cap of 10: exactly 10 succeed, the count is 10', async () => {
    const u = who();
    const results = await Promise.all(
      Array.from({ length: 100 }, () => reserveDailyOps(db, { ...u, at: NOON, ops: 1, cap: 10 })),
    );
    assert.equal(results.filter(Boolean).length, 10);
    assert.equal(await opsUsedToday(db, { ...u, at: NOON }), 10);
  });

  test('concurrent multi-operation reservations never overshoot', async () => {
    const u = who();
    const sizes = Array.from({ length: 60 }, (_, i) => (i % 4) + 1);
    const results = await Promise.all(sizes.map((ops) => reserveDailyOps(db, { ...u, at: NOON, ops, cap: 25 })));
    const reserved = sizes.filter((_, i) => results[i]).reduce((a, b) => a + b, 0);
    const used = await opsUsedToday(db, { ...u, at: NOON });
    assert.equal(used, reserved, 'the row holds exactly what was granted');
    assert.ok(used <= 25 && used >= 22, `used ${used}`);
  });

  test('a null cap counts anyway and always reserves', async () => {
    const u = who();
    for (let i = 0; i < 3; i++) assert.equal(await reserveDailyOps(db, { ...u, at: NOON, ops: 1000, cap: null }), true);
    assert.equal(await opsUsedToday(db, { ...u, at: NOON }), 3000);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => reserveDailyOps(db, { ...u, at: NOON, ops: 1, cap: null })),
    );
    assert.ok(results.every(Boolean));
    assert.equal(await opsUsedToday(db, { ...u, at: NOON }), 3020);
    // a cap set later in the day sees the operations already used
    assert.equal(await reserveDailyOps(db, { ...u, at: NOON, ops: 1, cap: 3020 }), false);
  });

  test('release gives operations back (never below zero), so they can be reserved again', async () => {
    const u = who();
    assert.equal(await reserveDailyOps(db, { ...u, at: NOON, ops: 10, cap: 10 }), true);
    assert.equal(await reserveDailyOps(db, { ...u, at: NOON, ops: 1, cap: 10 }), false);
    await releaseDailyOps(db, { ...u, at: NOON, ops: 4 });
    assert.equal(await opsUsedToday(db, { ...u, at: NOON }), 6);
    assert.equal(await reserveDailyOps(db, { ...u, at: NOON, ops: 4, cap: 10 }), true);
    await releaseDailyOps(db, { ...u, at: NOON, ops: 50 });
    assert.equal(await opsUsedToday(db, { ...u, at: NOON }), 0);
    await releaseDailyOps(db, { ...who(), at: NOON, ops: 1 }); // nothing reserved: nothing to do, no error
  });

  test('counts are per UTC day, per user and per app; a release goes to the day of its instant', async () => {
    const u = who();
    const lateEvening = new Date('2030-06-15T23:59:59.000Z');
    const nextMorning = new Date('2030-06-16T00:00:01.000Z');
    assert.equal(await reserveDailyOps(db, { ...u, at: lateEvening, ops: 5, cap: 5 }), true);
    assert.equal(await reserveDailyOps(db, { ...u, at: NOON, ops: 1, cap: 5 }), false, 'same UTC day');
    assert.equal(await reserveDailyOps(db, { ...u, at: nextMorning, ops: 5, cap: 5 }), true, 'a new UTC day');
    assert.equal(
      await reserveDailyOps(db, { ...u, userId: 'usr_other', at: NOON, ops: 5, cap: 5 }),
      true,
      'another user',
    );
    assert.equal(
      await reserveDailyOps(db, { ...u, appId: 'app_other', at: NOON, ops: 5, cap: 5 }),
      true,
      'another app',
    );
    await releaseDailyOps(db, { ...u, at: lateEvening, ops: 2 });
    assert.equal(await opsUsedToday(db, { ...u, at: NOON }), 3);
    assert.equal(await opsUsedToday(db, { ...u, at: nextMorning }), 5);
  });

  test('pruning deletes days more than two days old and keeps the rest', async () => {
    const u = who();
    const day = (iso: string) => new Date(`${iso}T12:00:00.000Z`);
    for (const d of ['2030-07-01', '2030-07-02', '2030-07-03', '2030-07-04']) {
      assert.equal(await reserveDailyOps(db, { ...u, at: day(d), ops: 1, cap: null }), true);
    }
    const removed = await pruneDailyOpCounts(db, new Date('2030-07-04T08:00:00.000Z'));
    assert.ok(removed >= 1);
    const kept = await db('daily_op_counts')
      .where({ app_id: u.appId })
      .orderBy('day')
      .select<{ day: string }[]>(db.raw('day::text as day'));
    assert.deepEqual(
      kept.map((r) => r.day),
      ['2030-07-02', '2030-07-03', '2030-07-04'],
    );
  });
});
