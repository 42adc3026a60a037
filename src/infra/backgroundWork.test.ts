import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createBackgroundWork } from './backgroundWork';

test('background work: its promise settles after the work (never rejects), and settle() waits for what is running', async () => {
  const work = createBackgroundWork();
  const done: string[] = [];
  let release!: () => void;
  const slow = work.start(
    () => new Promise<void>((r) => (release = r)).then(() => void done.push('slow')),
    () => done.push('slow failed'),
  );
  const failing = work.start(
    () => Promise.reject(new Error('down')),
    (err) => done.push(`onError: ${(err as Error).message}`),
  );
  await failing; // resolves, after its onError
  assert.deepEqual(done, ['onError: down']);
  const settled = work.settle(5_000).then(() => done.push('settled'));
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(done, ['onError: down'], 'settle waits for the running work');
  release();
  await Promise.all([slow, settled]);
  assert.deepEqual(done, ['onError: down', 'slow', 'settled']);
});
