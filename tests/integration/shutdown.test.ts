// Graceful shutdown on real PostgreSQL: the requests running when close() is called are all answered (none cut off,
// no "Acquire connection" error from a pool closed under them), and the work they started without waiting (the key's
// last use) is written before the pool closes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seedCredentials } from '../support/credentials';
import { capturingLogger } from '../support/log';
import { startTestService } from '../support/service';
import { freshDatabase } from '../support/database';
import { createDb, type Db } from '../../src/infra/db/database';
import { eventually } from '../support/funding';

/** Locks `table` against every reader until the returned function is called. */
async function holdTableLock(db: Db, table: string): Promise<() => Promise<void>> {
  let unlock!: () => void;
  const locked = new Promise<void>((resolve, reject) => {
    db.transaction(async (trx) => {
      await trx.raw(`lock table ${table} in access exclusive mode`);
      resolve();
      await new Promise<void>((r) => (unlock = r));
    }).catch(reject);
  });
  await locked;
  return async () => unlock();
}

const VALID_G = 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2';

test('close() answers every request already running before the pool closes, and logs no error', async () => {
  const database = await freshDatabase();
  const captured = capturingLogger('warn');
  const svc = await startTestService({}, { log: captured.log, database });
  try {
    const creds = await seedCredentials(svc.deps.db);
    // The requests are held inside the service (the wallets table locked by this test), so that all 200 are running
    // when close() is called: 10 holding the pool's connections, 190 waiting for one.
    const locker = createDb(database.url);
    const release = await holdTableLock(locker, 'wallets');
    const requests = Array.from({ length: 200 }, () =>
      fetch(`${svc.url}/v1/wallets/fund`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-api-key': creds.secretKey },
        body: JSON.stringify({ publicKey: VALID_G }),
      }).then(
        async (res) => ({ status: res.status, code: ((await res.json()) as { code: string }).code }),
        (err: unknown) => ({ status: 0, code: String(err) }),
      ),
    );
    await eventually('200 requests running', async () => svc.http?.inFlight === 200, 30_000);
    const closing = svc.close();
    try {
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(svc.http?.draining, true);
      assert.equal(svc.http?.inFlight, 200, 'nothing answered or cut off while the lock holds');
    } finally {
      await release();
      await locker.destroy();
      await closing;
    }
    const answers = await Promise.all(requests);
    const byOutcome = new Map<string, number>();
    for (const a of answers) byOutcome.set(`${a.status} ${a.code}`, (byOutcome.get(`${a.status} ${a.code}`) ?? 0) + 1);
    assert.deepEqual([...byOutcome], [['404 WALLET_NOT_FOUND', 200]], 'every request answered as if no shutdown');
    const errors = captured.lines.filter((l) => /"level":(50|60)/.test(l) || /Acquire connection/i.test(l));
    assert.deepEqual(errors, []);
    // The key's last use (written after the answer, without waiting) was not cut off either.
    const db = createDb(database.url);
    try {
      const key = await db('api_keys').where({ id: creds.secretKeyId }).first();
      assert.ok(key.last_used_at, 'last_used_at written before the pool closed');
    } finally {
      await db.destroy();
    }
  } finally {
    await svc.stop().catch(() => undefined);
    await database.drop();
  }
});
