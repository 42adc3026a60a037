// preparedQuery (src/infra/db/database.ts): a named statement on a connection of the knex pool, on real PostgreSQL.
// Its connection goes back to the pool whether the statement succeeds or fails, and a prepared statement is reused
// per connection with the values of each call. Given a transaction, it runs inside it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDb, preparedQuery } from '../../src/infra/db/database';
import { useMigratedDatabase } from '../support/database';

describe('preparedQuery', () => {
  const migrated = useMigratedDatabase();

  test('the same named statement, called many times at once, answers each call with its own values', async () => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        preparedQuery<{ n: number; label: string }>(migrated, 'test-echo', 'select $1::int as n, $2::text as label', [
          i,
          `call ${i}`,
        ]),
      ),
    );
    answers.forEach((a, i) => assert.deepEqual(a.rows, [{ n: i, label: `call ${i}` }]));
  });

  test('a failing statement rejects with the database error and hands its connection back', async () => {
    // A pool of 2: were a failed call to keep its connection, the third call would wait forever.
    const url = migrated.client.config.connection as string;
    const db = createDb(url, { poolMax: 2 });
    try {
      for (let i = 0; i < 5; i++) {
        await assert.rejects(preparedQuery(db, 'test-fail', 'select 1 / $1::int as n', [0]), /division by zero/);
      }
      const ok = await preparedQuery<{ n: number }>(db, 'test-fail', 'select 1 / $1::int as n', [1]);
      assert.deepEqual(ok.rows, [{ n: 1 }]);
      assert.equal(db.client.pool.numUsed(), 0, 'no connection is left checked out');
    } finally {
      await db.destroy();
    }
  });

  test('given a transaction, it runs on that transaction’s connection, and refuses one already complete', async () => {
    const setting = (db: typeof migrated) =>
      preparedQuery<{ v: string | null }>(db, 'test-setting', "select current_setting('onboard.test', true) as v", []);
    let completed: Parameters<Parameters<typeof migrated.transaction>[0]>[0] | undefined;
    await migrated.transaction(async (trx) => {
      // A setting local to the transaction: only a statement on its own connection, inside it, sees it.
      await trx.raw("select set_config('onboard.test', 'inside', true)");
      assert.deepEqual((await setting(trx)).rows, [{ v: 'inside' }]);
      completed = trx;
    });
    assert.notEqual((await setting(migrated)).rows[0]?.v, 'inside');
    await assert.rejects(setting(completed!), /already complete/);
  });
});
