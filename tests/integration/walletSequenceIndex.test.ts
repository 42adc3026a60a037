// The unique index of a wallet's live built sequence numbers (migration 0033) on real PostgreSQL, and the optimistic
// claim that relies on it (src/domain/transactions/sequences.ts claimSequence): a second live built record with a
// number is refused while a client's record or a settled one may share it; concurrent claims from one stale read all
// end with distinct numbers; and the migration lets an older record whose number was taken again give it up.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { claimSequence, SEQUENCE_TAKEN } from '../../src/domain/transactions/sequences';
import { insertTransaction, type NewTx } from '../../src/domain/transactions/store';
import { migrations } from '../../src/infra/db/migrations/index';
import { seedCredentials } from '../support/credentials';
import { useMigratedDatabase } from '../support/database';
import { newTx, walletRow } from '../support/history';

const db = useMigratedDatabase();

/** The record, with no history line (nothing here reads one). */
const insert = (tx: NewTx) => insertTransaction(db, tx, []);

/** A live record of `walletId`'s with sequence number `seq` (a build claimed for submission unless `over` says). */
function live(appId: string, walletId: string, seq: bigint, over: Partial<NewTx> = {}): NewTx {
  return newTx(appId, walletId, new Date(), {
    status: 'PENDING',
    stage: 'submitted',
    resultCode: undefined,
    seqNum: seq,
    ...over,
  });
}

describe('one live built record per sequence number of a wallet', () => {
  test("a second live build with the number writes nothing; a client's record, a settled one and another wallet's may share it", async () => {
    const appId = (await seedCredentials(db)).app.id;
    const a = await walletRow(db, appId);
    const b = await walletRow(db, appId);
    assert.ok(await insert(live(appId, a.id, 100n)));
    assert.equal(await insert(live(appId, a.id, 100n)), undefined);
    assert.equal(await insert(live(appId, a.id, 100n, { stage: 'built' })), undefined);
    assert.ok(await insert(live(appId, a.id, 100n, { origin: 'client' })));
    assert.ok(await insert(live(appId, a.id, 100n, { status: 'FAILED', stage: 'failed' })));
    assert.ok(await insert(live(appId, b.id, 100n)));
    const rows = await db('transactions').where({ wallet_id: a.id, seq_num: '100' }).select('origin', 'stage');
    assert.deepEqual(rows.map((r: { origin: string; stage: string }) => `${r.origin}/${r.stage}`).sort(), [
      'built/failed',
      'built/submitted',
      'client/submitted',
    ]);
  });

  test('30 concurrent claims from the same stale read end with 30 distinct numbers, one after the other', async () => {
    const appId = (await seedCredentials(db)).app.id;
    const wallet = await walletRow(db, appId);
    let lost = 0;
    const claimed = await Promise.all(
      Array.from({ length: 30 }, () =>
        claimSequence(
          db,
          wallet.id,
          500n,
          async (sequence) => {
            const record = await insert(live(appId, wallet.id, sequence));
            if (!record) lost++;
            return record ? sequence : SEQUENCE_TAKEN;
          },
          0n, // every claim starts from the same read, taken before any of them wrote
        ),
      ),
    );
    assert.deepEqual(
      claimed.sort((x, y) => (x < y ? -1 : 1)),
      Array.from({ length: 30 }, (_, i) => 501n + BigInt(i)),
    );
    assert.ok(lost > 0, 'some claims lost a number and took the next');
  });

  test('a number held by a live record past its time bound is stepped over, not taken again', async () => {
    const appId = (await seedCredentials(db)).app.id;
    const wallet = await walletRow(db, appId);
    await insert(live(appId, wallet.id, 41n, { validUntil: new Date(Date.now() - 3_600_000) }));
    const sequence = await claimSequence(db, wallet.id, 40n, async (s) =>
      (await insert(live(appId, wallet.id, s))) ? s : SEQUENCE_TAKEN,
    );
    assert.equal(sequence, 42n);
  });
});

describe('migration 0033', () => {
  test('an older live build whose number was taken again gives it up; the newer keeps it', async () => {
    const appId = (await seedCredentials(db)).app.id;
    const wallet = await walletRow(db, appId);
    const index = migrations.find((m) => m.name === '0033_wallet_sequence_unique')!;
    await index.down(db);
    // Two live builds with one number, as the lock allowed once the older's time bound had passed, and a client's.
    let records: { id: string }[];
    try {
      records = await Promise.all([
        insert(
          live(appId, wallet.id, 7n, { at: new Date(Date.now() - 60_000), validUntil: new Date(Date.now() - 30_000) }),
        ),
        insert(live(appId, wallet.id, 7n)),
        insert(live(appId, wallet.id, 7n, { origin: 'client' })),
      ]).then((r) => r.map((x) => x!));
    } finally {
      // Run however the inserts went, so the index is back for anything after this test.
      await index.up(db);
    }
    const [older, newer, client] = records;
    const seqOf = async (id: string) =>
      (await db('transactions').where({ id }).first<{ seq_num: string | null }>('seq_num'))?.seq_num;
    assert.equal(await seqOf(older!.id), null);
    assert.equal(await seqOf(newer!.id), '7');
    assert.equal(await seqOf(client!.id), '7', "a client's record keeps the number it brought");
  });
});
