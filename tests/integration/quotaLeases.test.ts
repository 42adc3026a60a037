// The testnet quota spent from leased blocks (src/domain/limits/quotaLeases.ts) on real PostgreSQL, with two processes
// (two QuotaLeases, each with its own connection pool, on one database) spending one key's quota at once: never past
// the quota, exactly the quota once idle leases are given back, a small fraction of the writes a count per request
// makes, a process that dies with a lease forfeits at most one block, and the next lease is taken before it is needed.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDb } from '../../src/infra/db/database';
import { dailyUsage, setDailyUsage } from '../../src/domain/limits/dailyQuota';
import {
  EXHAUSTED_RECHECK_MS,
  IDLE_RETURN_MS,
  MAX_BLOCK,
  MAX_LEASE,
  QuotaLeases,
} from '../../src/domain/limits/quotaLeases';
import { seedCredentials } from '../support/credentials';
import { useMigratedDatabase } from '../support/database';

const db = useMigratedDatabase();
const DAY = '2030-06-15';

/** `n` spends at once, answering how many were admitted. */
async function spendMany(leases: QuotaLeases, keyId: string, n: number, quota: number): Promise<number> {
  const answers = await Promise.all(Array.from({ length: n }, () => leases.spend(keyId, DAY, quota)));
  return answers.filter((a) => a !== undefined).length;
}

/** A second process: its own pool on the same database. */
function otherProcess() {
  const url = (db.client as { config: { connection: string } }).config.connection;
  return createDb(url, { poolMax: 10 });
}

describe('testnet quota leases', () => {
  test('two processes, 1,500 requests at once against 1,000: never past it, exactly 1,000 once idle leases come back, with a few dozen writes', async () => {
    const { secretKeyId } = await seedCredentials(db);
    const secondDb = otherProcess();
    try {
      let writes = 0;
      const countWrites = (q: { sql: string }) => {
        if (/api_key_daily_usage/.test(q.sql) && /^(insert|update)/i.test(q.sql.trim())) writes += 1;
      };
      db.on('query', countWrites);
      secondDb.on('query', countWrites);
      const first = new QuotaLeases(db);
      const second = new QuotaLeases(secondDb);
      const [a, b] = await Promise.all([
        spendMany(first, secretKeyId, 750, 1000),
        spendMany(second, secretKeyId, 750, 1000),
      ]);
      // A process whose requests ran out may hold part of its last block: never more than the quota, and a block
      // at most short of it.
      assert.ok(a + b <= 1000 && a + b >= 1000 - 2 * MAX_BLOCK, `admitted ${a} + ${b}`);
      // Once the leases are idle they come back, and a process that found the quota used up asks again.
      await new Promise((r) => setTimeout(r, IDLE_RETURN_MS + EXHAUSTED_RECHECK_MS + 200));
      const [c, d] = await Promise.all([
        spendMany(first, secretKeyId, 100, 1000),
        spendMany(second, secretKeyId, 100, 1000),
      ]);
      assert.equal(a + b + c + d, 1000, `admitted ${a} + ${b}, then ${c} + ${d}`);
      await new Promise((r) => setTimeout(r, IDLE_RETURN_MS + 200));
      assert.equal(await dailyUsage(db, secretKeyId, DAY), 1000);
      db.off('query', countWrites);
      assert.ok(writes < 150, `${writes} writes for 1,000 requests (a count per request makes 1,000)`);
    } finally {
      await secondDb.destroy();
    }
  });

  test('never past the quota, whatever the concurrency; single requests near its end', async () => {
    const { secretKeyId } = await seedCredentials(db);
    await setDailyUsage(db, secretKeyId, DAY, 70);
    const admitted = await spendMany(new QuotaLeases(db), secretKeyId, 50, 100);
    assert.equal(admitted, 30);
    assert.equal(await dailyUsage(db, secretKeyId, DAY), 100);
    assert.equal(await spendMany(new QuotaLeases(db), secretKeyId, 5, 100), 0, 'a new process sees it used up');
  });

  test('a process that dies with a lease forfeits at most one block; the others go on to the quota', async () => {
    const { secretKeyId } = await seedCredentials(db);
    const dyingDb = otherProcess();
    const dying = new QuotaLeases(dyingDb);
    assert.ok(await dying.spend(secretKeyId, DAY, 1000), 'the first request leases a block');
    await dyingDb.destroy(); // the process is gone: it gives nothing back
    const leased = await dailyUsage(db, secretKeyId, DAY);
    assert.ok(leased > 1 && leased <= MAX_BLOCK, `one block leased (${leased})`);
    // `dying` is dropped with its unspent requests: the survivor gets everything else.
    const survivor = await spendMany(new QuotaLeases(db), secretKeyId, 1100, 1000);
    assert.equal(survivor, 1000 - leased);
    assert.ok(1 + survivor >= 1000 - MAX_BLOCK);
  });

  test('the next lease is taken while half of the current one is left: a steady stream of requests never waits for one, and never more than MAX_BLOCK is held', async () => {
    const { secretKeyId } = await seedCredentials(db);
    const leases = new QuotaLeases(db);
    // Lease statements in flight, from knex's own events (the reads of dailyUsage below are not counted).
    let inFlight = 0;
    let leasesTaken = 0;
    const isLease = (q: { sql: string }) => /^insert into api_key_daily_usage/i.test(q.sql.trim());
    const started = (q: { sql: string }) => {
      if (!isLease(q)) return;
      inFlight += 1;
      leasesTaken += 1;
    };
    const ended = (_r: unknown, q: { sql: string }) => {
      if (isLease(q)) inFlight -= 1;
    };
    db.on('query', started).on('query-response', ended).on('query-error', ended);
    try {
      const waited: number[] = [];
      for (let i = 1; i <= 200; i++) {
        const spending = leases.spend(secretKeyId, DAY, 1_000_000);
        // A spend from memory settles within this turn of the event loop; one that waits for the database cannot.
        const fromMemory = await Promise.race([
          spending.then(() => true),
          new Promise<boolean>((r) => setImmediate(() => r(false))),
        ]);
        assert.ok(await spending);
        if (!fromMemory) waited.push(i);
        // A stream with gaps: the lease taken in the background lands before the next request.
        while (inFlight > 0) await new Promise((r) => setTimeout(r, 1));
        const held = (await dailyUsage(db, secretKeyId, DAY)) - i;
        assert.ok(held >= 0 && held <= MAX_BLOCK, `request ${i}: ${held} leased and unspent`);
      }
      assert.deepEqual(waited, [1], 'only the first request waited for a lease');
      assert.ok(leasesTaken >= 200 / MAX_LEASE && leasesTaken <= 200 / (MAX_LEASE / 2) + 1, `${leasesTaken} leases`);
    } finally {
      db.off('query', started).off('query-response', ended).off('query-error', ended);
    }
  });

  test('the remaining count answered is what is left as this process knows it', async () => {
    const { secretKeyId } = await seedCredentials(db);
    const leases = new QuotaLeases(db);
    const first = await leases.spend(secretKeyId, DAY, 100);
    assert.deepEqual(first, { remaining: 99 });
    const second = await leases.spend(secretKeyId, DAY, 100);
    assert.deepEqual(second, { remaining: 98 });
  });
});
