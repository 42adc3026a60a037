// Wallet history paging (src/domain/transactions/history.ts) on real PostgreSQL, rows written through the store
// (insertTransaction / addHistory, which keep the counters): newest first with ties broken by id, offset and cursor
// pages that never overlap or skip, `total` from the counter, and cursors refused outside the wallet they came from.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { AppError } from '../../src/domain/errors';
import { encodeCursor } from '../../src/domain/paging/cursor';
import { findWalletTransaction, listWalletHistory, type TxHistoryRecord } from '../../src/domain/transactions/history';
import { addHistory, insertTransaction, type NewTx } from '../../src/domain/transactions/store';
import { seedCredentials } from '../support/credentials';
import { useMigratedDatabase } from '../support/database';
import { newTx, walletRow } from '../support/history';

const db = useMigratedDatabase();

async function allPages(walletId: string, limit: number): Promise<{ pages: TxHistoryRecord[][]; offsets: number[] }> {
  const pages: TxHistoryRecord[][] = [];
  const offsets: number[] = [];
  let cursor: string | undefined;
  do {
    const page = await listWalletHistory(db, { walletId, limit, offset: 0, ...(cursor ? { cursor } : {}) });
    pages.push(page.records);
    offsets.push(page.offset);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return { pages, offsets };
}

function isCursorRefusal(err: unknown): boolean {
  return (
    err instanceof AppError &&
    err.code === 'INVALID_CURSOR' &&
    JSON.stringify(err.details) ===
      JSON.stringify({
        fieldErrors: { 'query.cursor': ['is not a cursor of this list: pass back a nextCursor as given'] },
      })
  );
}

describe('listWalletHistory', () => {
  let appId: string;
  let a: { id: string; publicKey: string };
  let b: { id: string; publicKey: string };
  /** Wallet a's transaction ids, newest first as the history must list them. */
  let expected: string[];

  test('set-up: 45 transactions of wallet a (five share one timestamp), 3 of wallet b, one shared', async () => {
    appId = (await seedCredentials(db)).app.id;
    a = await walletRow(db, appId);
    b = await walletRow(db, appId);
    const base = Date.parse('2026-11-01T00:00:00Z');
    const rows: { id: string; at: number }[] = [];
    await db.transaction(async (trx) => {
      for (let i = 0; i < 45; i++) {
        const at = i >= 20 && i < 25 ? base + 20_000 : base + i * 1000; // five rows tie on created_at
        const over: Partial<NewTx> =
          i === 0 ? { feeStroops: undefined, resultCode: undefined, status: 'PENDING', stage: 'submitted' } : {};
        const tx = await insertTransaction(trx, newTx(appId, a.id, new Date(at), over), [
          { walletId: a.id, direction: 'sent', summary: `a-${i}` },
        ]);
        rows.push({ id: tx!.id, at });
      }
      for (let i = 0; i < 3; i++) {
        await insertTransaction(trx, newTx(appId, b.id, new Date(base + i)), [
          { walletId: b.id, direction: 'sent', summary: `b-${i}` },
        ]);
      }
    });
    expected = rows.sort((x, y) => y.at - x.at || (x.id < y.id ? 1 : -1)).map((r) => r.id);
  });

  test('the first page: newest first, the total from the counter, a cursor to the next page', async () => {
    const page = await listWalletHistory(db, { walletId: a.id, limit: 20, offset: 0 });
    assert.equal(page.total, 45);
    assert.equal(page.offset, 0);
    assert.deepEqual(
      page.records.map((r) => r.id),
      expected.slice(0, 20),
    );
    assert.ok(page.nextCursor);
    const newest = page.records[0]!;
    assert.deepEqual(
      Object.keys(newest).sort(),
      ['createdAt', 'feeXlm', 'hash', 'id', 'network', 'operation', 'resultCode', 'status', 'summary'].sort(),
    );
    assert.equal(newest.feeXlm, '0.00002', 'fee_stroops 200 as XLM');
    assert.equal(newest.summary, 'a-44', "the history row's own summary");
    assert.equal(newest.createdAt, '2026-11-01T00:00:44.000Z');
  });

  test('offset pages: advance offset by limit while offset < total; ties broken by id; the last page has no cursor', async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < 45; offset += 20) {
      const page = await listWalletHistory(db, { walletId: a.id, limit: 20, offset });
      assert.equal(page.offset, offset);
      seen.push(...page.records.map((r) => r.id));
      assert.equal(page.nextCursor === null, offset + 20 >= 45);
    }
    assert.deepEqual(seen, expected);
  });

  test('the oldest record has no fee and no result code yet: both fields are omitted', async () => {
    const page = await listWalletHistory(db, { walletId: a.id, limit: 5, offset: 40 });
    const oldest = page.records.at(-1)!;
    assert.equal(oldest.summary, 'a-0');
    assert.equal(oldest.status, 'PENDING');
    assert.equal('feeXlm' in oldest, false);
    assert.equal('resultCode' in oldest, false);
  });

  test('cursor pages walk the same list as offset pages, with the offset each page sits at', async () => {
    for (const limit of [1, 7, 20, 45, 100]) {
      const { pages, offsets } = await allPages(a.id, limit);
      assert.deepEqual(
        pages.flat().map((r) => r.id),
        expected,
        `limit ${limit}`,
      );
      assert.deepEqual(
        offsets,
        pages.map((_, i) => i * limit),
      );
    }
  });

  test('a record added after a cursor was handed out does not shift the cursor pages (offset pages do shift)', async () => {
    const first = await listWalletHistory(db, { walletId: a.id, limit: 10, offset: 0 });
    await db.transaction((trx) =>
      insertTransaction(trx, newTx(appId, a.id, new Date('2026-11-02T00:00:00Z')), [
        { walletId: a.id, direction: 'sent', summary: 'newer' },
      ]),
    );
    const next = await listWalletHistory(db, { walletId: a.id, limit: 10, offset: 0, cursor: first.nextCursor! });
    assert.deepEqual(
      next.records.map((r) => r.id),
      expected.slice(10, 20),
    );
    assert.equal(next.total, 46);
    const shifted = await listWalletHistory(db, { walletId: a.id, limit: 10, offset: 10 });
    assert.equal(shifted.records[0]!.id, expected[9]);
  });

  test("a cursor of another wallet's history, a forged one and an audit-log cursor are refused with query.cursor", async () => {
    const ofB = (await listWalletHistory(db, { walletId: b.id, limit: 1, offset: 0 })).nextCursor!;
    assert.ok(ofB);
    await assert.rejects(listWalletHistory(db, { walletId: a.id, limit: 20, offset: 0, cursor: ofB }), isCursorRefusal);
    for (const cursor of [
      'garbage!',
      encodeCursor({ afterId: 'tx_doesNotExist', offset: 0 }),
      encodeCursor({ afterId: 'aud_0123456789ABCDEFabcdef', offset: 20 }),
    ]) {
      await assert.rejects(
        listWalletHistory(db, { walletId: a.id, limit: 20, offset: 0, cursor }),
        isCursorRefusal,
        cursor,
      );
    }
  });

  test("a transaction in two wallets' histories shows each wallet its own summary, and is counted in both", async () => {
    const tx = await db.transaction(async (trx) => {
      const tx = await insertTransaction(trx, newTx(appId, a.id, new Date('2026-11-03T00:00:00Z')), [
        { walletId: a.id, direction: 'sent', summary: 'Sent to b' },
      ]);
      await addHistory(
        trx,
        tx!.id,
        [{ walletId: b.id, direction: 'received', summary: 'Received from a' }],
        new Date('2026-11-03T00:00:05Z'),
      );
      return tx!;
    });
    const [ofA, ofB] = await Promise.all([
      listWalletHistory(db, { walletId: a.id, limit: 1, offset: 0 }),
      listWalletHistory(db, { walletId: b.id, limit: 1, offset: 0 }),
    ]);
    assert.deepEqual([ofA.records[0]!.id, ofA.records[0]!.summary, ofA.total], [tx.id, 'Sent to b', 47]);
    assert.deepEqual([ofB.records[0]!.id, ofB.records[0]!.summary, ofB.total], [tx.id, 'Received from a', 4]);
    assert.equal(ofB.records[0]!.createdAt, '2026-11-03T00:00:05.000Z', "the wallet's own history time");
  });

  test('findWalletTransaction: by hash or inner hash, only in the wallet whose history holds it', async () => {
    const inner = randomBytes(32).toString('hex');
    const tx = await db.transaction(async (trx) =>
      insertTransaction(trx, newTx(appId, a.id, new Date(), { innerHash: inner, ledger: 123, envelopeXdr: 'AAAA' }), [
        { walletId: a.id, direction: 'sent', summary: 'x' },
      ]),
    );
    for (const hash of [tx!.hash, inner]) {
      const found = await findWalletTransaction(db, { walletId: a.id, network: 'testnet', hash });
      assert.equal(found?.id, tx!.id);
      assert.equal(found?.ledger, 123);
      assert.equal(found?.envelopeXdr, 'AAAA');
    }
    assert.equal(await findWalletTransaction(db, { walletId: b.id, network: 'testnet', hash: tx!.hash }), undefined);
    assert.equal(await findWalletTransaction(db, { walletId: a.id, network: 'mainnet', hash: tx!.hash }), undefined);
  });

  test('a wallet without history: no records, total 0, no cursor', async () => {
    const empty = await walletRow(db, appId);
    assert.deepEqual(await listWalletHistory(db, { walletId: empty.id, limit: 20, offset: 0 }), {
      records: [],
      total: 0,
      offset: 0,
      nextCursor: null,
    });
  });
});
