import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HistoryStore } from '../../history/historyStore';
import { fakeLedger } from '../../history/testLedgers';
import { RpcError } from '../jsonRpc';
import { getTransactions } from './getTransactions';

function history(): HistoryStore {
  const h = new HistoryStore(100);
  // ledgers 1..6 with 0, 2, 0, 3, 1, 0 transactions
  [0, 2, 0, 3, 1, 0].forEach((n, i) => h.record(fakeLedger(i + 1, n)));
  return h;
}

const codeOf = (fn: () => unknown): number => {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof RpcError);
    return err.code;
  }
  assert.fail('expected an RpcError');
};

describe('getTransactions', () => {
  const method = getTransactions({ history: history() });
  type Page = {
    transactions: { ledger: number; applicationOrder: number; createdAt: number; status: string }[];
    cursor: string;
    latestLedgerCloseTimestamp: number;
  };

  test('pages through every transaction in order with cursors (ledger << 32 | order << 12 | 1)', () => {
    const first = method({ startLedger: 1, pagination: { limit: 2 } }, {}) as Page;
    assert.deepEqual(
      first.transactions.map((t) => [t.ledger, t.applicationOrder]),
      [
        [2, 1],
        [2, 2],
      ],
    );
    assert.equal(first.cursor, String(2n * 2n ** 32n + 2n * 4096n + 1n));
    assert.equal(typeof first.transactions[0]!.createdAt, 'number');
    assert.equal(typeof first.latestLedgerCloseTimestamp, 'number');
    const second = method({ pagination: { cursor: first.cursor, limit: 3 } }, {}) as Page;
    assert.deepEqual(
      second.transactions.map((t) => [t.ledger, t.applicationOrder]),
      [
        [4, 1],
        [4, 2],
        [4, 3],
      ],
    );
    const third = method({ pagination: { cursor: second.cursor } }, {}) as Page;
    assert.deepEqual(
      third.transactions.map((t) => [t.ledger, t.applicationOrder]),
      [[5, 1]],
    );
    // The walk reached the latest ledger (6, empty): the cursor points at its start, and nothing follows.
    assert.equal(third.cursor, String(6n * 2n ** 32n + 1n));
    assert.equal((method({ pagination: { cursor: third.cursor } }, {}) as Page).transactions.length, 0);
  });

  test('default limit 50; limit over 200, startLedger out of range, or both start and cursor: -32600', () => {
    assert.equal((method({ startLedger: 1 }, {}) as Page).transactions.length, 6);
    assert.equal(
      codeOf(() => method({ startLedger: 1, pagination: { limit: 201 } }, {})),
      -32600,
    );
    assert.equal(
      codeOf(() => method({ startLedger: 7 }, {})),
      -32600,
    );
    assert.equal(
      codeOf(() => method({ startLedger: 0 }, {})),
      -32600,
    );
    assert.equal(
      codeOf(() => method({ startLedger: 2, pagination: { cursor: '1' } }, {})),
      -32600,
    );
  });

  test('a cursor that is not an int64 or names a dropped ledger: -32602', () => {
    assert.equal(
      codeOf(() => method({ pagination: { cursor: 'abc' } }, {})),
      -32602,
    );
    const h = new HistoryStore(2);
    for (let s = 1; s <= 5; s++) h.record(fakeLedger(s, 1));
    assert.equal(
      codeOf(() => getTransactions({ history: h })({ pagination: { cursor: String(1n << 32n) } }, {})),
      -32602,
    );
  });
});
