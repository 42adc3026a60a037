import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AppliedTransaction, ClosedLedger, LedgerEngine } from './engine';
import { HistoryStore } from './history/historyStore';
import { fakeLedger, fakeTx } from './history/testLedgers';
import { LedgerCloser } from './ledgerCloser';

/** Just enough engine for the close loop: a queue of transactions that the next close applies. */
function fakeEngine(): { engine: LedgerEngine; queue: AppliedTransaction[]; closeTimes: number[] } {
  let seq = 1;
  const queue: AppliedTransaction[] = [];
  const closeTimes: number[] = [];
  const engine = {
    pendingCount: () => queue.length,
    closeLedger(closeTime: number): ClosedLedger {
      seq++;
      closeTimes.push(closeTime);
      const transactions = queue.splice(0).map((t, i) => ({ ...t, ledger: seq, applicationOrder: i + 1 }));
      return {
        sequence: seq,
        closeTime,
        hash: String(seq).padStart(64, '0'),
        headerXdr: '',
        metadataXdr: '',
        transactions,
      };
    },
  } as unknown as LedgerEngine;
  return { engine, queue, closeTimes };
}

function setup(nowMs: () => number) {
  const { engine, queue, closeTimes } = fakeEngine();
  const history = new HistoryStore(100);
  history.record(fakeLedger(1));
  const closed: number[] = [];
  const closer = new LedgerCloser(
    { engine, history, nowMs, log: () => {}, onClosed: (l) => closed.push(l.sequence) },
    'manual',
  );
  return { queue, closeTimes, history, closer, closed };
}

describe('LedgerCloser', () => {
  test('close records the ledger, calls onClosed, and never moves the close time backwards', () => {
    const { closeTimes, history, closer, closed } = setup(() => 1_000_000);
    const first = closer.close();
    assert.equal(first.sequence, 2);
    assert.equal(history.latest().sequence, 2);
    assert.deepEqual(closed, [2]);
    // fakeLedger(1) closed at 1_700_000_005 s, later than this clock: the close time stays there.
    assert.equal(closeTimes[0], 1_700_000_005);
  });

  test('manual cadence: waiting for a queued transaction closes one ledger for all concurrent waiters', async () => {
    const { queue, closer, closed } = setup(() => Date.now());
    const a = fakeTx(0, 1, { hash: 'a'.repeat(64) });
    const b = fakeTx(0, 2, { hash: 'b'.repeat(64), feeBump: true, innerHash: 'c'.repeat(64) });
    queue.push(a, b);
    const [ta, tb] = await Promise.all([closer.waitForTransaction(a.hash), closer.waitForTransaction('C'.repeat(64))]);
    assert.equal(ta.ledger, 2);
    assert.equal(tb.hash, b.hash);
    assert.deepEqual(closed, [2]);
    // Already in the history: answered at once, no close.
    await closer.waitForTransaction(a.hash);
    assert.deepEqual(closed, [2]);
  });

  test('a wait for a transaction that is not queued fails instead of hanging; nextClose closes one', async () => {
    const { closer, closed } = setup(() => Date.now());
    await assert.rejects(closer.waitForTransaction('d'.repeat(64)), /not queued/);
    const l = await closer.nextClose();
    assert.equal(l.sequence, 2);
    assert.deepEqual(closed, [2]);
    closer.stop();
    await assert.rejects(closer.nextClose(), /stopped/);
  });
});
