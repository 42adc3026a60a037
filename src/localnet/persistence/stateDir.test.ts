import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeLedger } from '../history/testLedgers';
import { StateDir } from './stateDir';

const PASS = 'Test SDF Network ; September 2015';
const snap = (n: number) => ({ snapshot: { version: 1 as const, marker: n }, latestLedger: n });

function withDir(fn: (dir: string) => Promise<void> | void) {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'localnet-state-'));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

describe('StateDir', () => {
  test(
    'round trip: the snapshot and the history (bigint fees included) come back',
    withDir(async (dir) => {
      const s = new StateDir(dir, { networkPassphrase: PASS, retentionLedgers: 100, log: () => {} });
      assert.deepEqual(s.load(), { ledgers: [] });
      s.rewriteHistory([fakeLedger(1)]);
      s.saveNow(snap(1));
      s.appendLedger(fakeLedger(2, 2), () => []);
      s.requestSave(() => snap(2));
      await s.flush();
      const back = new StateDir(dir, { networkPassphrase: PASS, retentionLedgers: 100, log: () => {} }).load();
      assert.deepEqual(back.snapshot, { version: 1, marker: 2 });
      assert.deepEqual(
        back.ledgers.map((l) => l.sequence),
        [1, 2],
      );
      assert.equal(back.ledgers[1]!.transactions[1]!.feeCharged, 100n);
    }),
  );

  test(
    'history lines ahead of the snapshot (a crash between the two writes) and a torn last line are dropped',
    withDir((dir) => {
      const s = new StateDir(dir, { networkPassphrase: PASS, retentionLedgers: 100, log: () => {} });
      s.rewriteHistory([fakeLedger(1), fakeLedger(2)]);
      s.saveNow(snap(1));
      appendFileSync(join(dir, 'history.jsonl'), '{"s":3,"t":1');
      const back = new StateDir(dir, { networkPassphrase: PASS, retentionLedgers: 100, log: () => {} }).load();
      assert.deepEqual(
        back.ledgers.map((l) => l.sequence),
        [1],
      );
      assert.equal(readFileSync(join(dir, 'history.jsonl'), 'utf8').trim().split('\n').length, 1);
    }),
  );

  test(
    'the history file is compacted to the retention window',
    withDir((dir) => {
      const s = new StateDir(dir, { networkPassphrase: PASS, retentionLedgers: 10, log: () => {} });
      const all = Array.from({ length: 1200 }, (_, i) => fakeLedger(i + 1));
      s.rewriteHistory([all[0]!]);
      for (const l of all.slice(1)) s.appendLedger(l, () => all.slice(-10));
      assert.ok(readFileSync(join(dir, 'history.jsonl'), 'utf8').trim().split('\n').length <= 1010);
    }),
  );

  test(
    'a directory of another network is refused',
    withDir((dir) => {
      const s = new StateDir(dir, { networkPassphrase: PASS, retentionLedgers: 10, log: () => {} });
      s.saveNow(snap(1));
      assert.throws(
        () =>
          new StateDir(dir, {
            networkPassphrase: 'Standalone Network ; February 2017',
            retentionLedgers: 10,
            log: () => {},
          }).load(),
        /holds a localnet for/,
      );
    }),
  );
});
