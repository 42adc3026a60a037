import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BatchQueue, type BatchTurn } from './batchQueue';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('items arriving together go in batches that fit, in order, at most `concurrency` batches at once', async () => {
  const batches: number[][] = [];
  let running = 0;
  let most = 0;
  const queue = new BatchQueue<null, number, string>(
    { gatherMs: 5, concurrency: 2, maxItems: 3, fits: (batch, next) => batch.length + next <= 5 },
    async (_shared, turn: BatchTurn<number, string>) => {
      running += 1;
      most = Math.max(most, running);
      await sleep(10);
      const batch = turn.take();
      batches.push(batch.map((e) => e.item));
      for (const e of batch) e.resolve(`done ${e.item}`);
      running -= 1;
    },
  );
  const results = await Promise.all([1, 1, 1, 1, 4, 1, 1].map((n) => queue.add('k', null, n)));
  assert.deepEqual(results, ['done 1', 'done 1', 'done 1', 'done 1', 'done 4', 'done 1', 'done 1']);
  assert.deepEqual(batches.flat(), [1, 1, 1, 1, 4, 1, 1], 'every item once, in order of arrival');
  assert.ok(
    batches.every((b) => b.length <= 3),
    JSON.stringify(batches),
  );
  assert.ok(most <= 2, `at most 2 at once, saw ${most}`);
});

test('a batch refused as a whole is retried one item at a time; a failing item alone is rejected', async () => {
  const seen: number[][] = [];
  const queue = new BatchQueue<null, number, number>(
    { gatherMs: 5, concurrency: 1, maxItems: 10, fits: () => true },
    async (_shared, turn) => {
      const batch = turn.take();
      seen.push(batch.map((e) => e.item));
      if (batch.some((e) => e.item < 0)) {
        if (batch.length > 1) turn.retryAlone(batch);
        else batch[0]!.reject(new Error(`bad ${batch[0]!.item}`));
        return;
      }
      for (const e of batch) e.resolve(e.item * 10);
    },
  );
  const outcomes = await Promise.allSettled([1, -2, 3].map((n) => queue.add('k', null, n)));
  assert.deepEqual(
    outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message)),
    [10, 'bad -2', 30],
  );
  assert.deepEqual(seen, [[1, -2, 3], [1], [-2], [3]]);
});

test('a run that throws before taking its batch rejects the items it would have taken', async () => {
  const queue = new BatchQueue<null, number, number>(
    { gatherMs: 1, concurrency: 1, maxItems: 10, fits: () => true },
    () => Promise.reject(new Error('no channel')),
  );
  await assert.rejects(queue.add('k', null, 1), /no channel/);
});
