import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HistoryStore } from './historyStore';
import { fakeLedger, fakeTx } from './testLedgers';

describe('HistoryStore', () => {
  test('keeps the last retentionLedgers ledgers and moves oldestLedger forward', () => {
    const h = new HistoryStore(3);
    for (let s = 1; s <= 5; s++) h.record(fakeLedger(s, 1));
    assert.equal(h.size, 3);
    assert.equal(h.oldest().sequence, 3);
    assert.equal(h.latest().sequence, 5);
    assert.equal(h.ledger(2), undefined);
    assert.equal(h.ledger(4)?.sequence, 4);
  });

  test('transactions of dropped ledgers are no longer found', () => {
    const h = new HistoryStore(2);
    const first = fakeLedger(1, 2);
    h.record(first);
    assert.ok(h.findTransaction(first.transactions[0]!.hash));
    h.record(fakeLedger(2));
    h.record(fakeLedger(3));
    assert.equal(h.findTransaction(first.transactions[0]!.hash), undefined);
  });

  test('a fee-bump is found by its outer and its inner hash, case-insensitively', () => {
    const h = new HistoryStore(10);
    const inner = 'ab'.repeat(32);
    const ledger = { ...fakeLedger(1), transactions: [fakeTx(1, 1, { feeBump: true, innerHash: inner })] };
    h.record(ledger);
    assert.equal(h.findTransaction(ledger.transactions[0]!.hash)?.ledger.sequence, 1);
    assert.equal(h.findTransaction(inner.toUpperCase())?.tx.feeBump, true);
  });

  test('a gap restarts the history at the new ledger; going backwards is refused', () => {
    const h = new HistoryStore(10);
    h.record(fakeLedger(1));
    h.record(fakeLedger(5));
    assert.equal(h.oldest().sequence, 5);
    assert.throws(() => h.record(fakeLedger(5)), /not after/);
  });

  test('ledgersFrom and lastLedgers walk the retained ledgers in order, across compactions', () => {
    const h = new HistoryStore(5000);
    for (let s = 1; s <= 12000; s++) h.record(fakeLedger(s));
    assert.equal(h.oldest().sequence, 7001);
    assert.deepEqual(
      [...h.ledgersFrom(11998)].map((l) => l.sequence),
      [11998, 11999, 12000],
    );
    assert.equal([...h.ledgersFrom(1)].length, 5000);
    assert.deepEqual(
      h.lastLedgers(2).map((l) => l.sequence),
      [11999, 12000],
    );
    assert.equal(h.ledger(7001)?.sequence, 7001);
  });
});
