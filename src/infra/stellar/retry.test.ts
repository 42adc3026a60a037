import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { withRetry } from './retry';

describe('withRetry', () => {
  const policy = { attempts: 4, initialDelayMs: 100, maxDelayMs: 250 };

  test('retries retryable failures with growing, capped delays, then succeeds', async () => {
    const waits: number[] = [];
    let calls = 0;
    const value = await withRetry(
      policy,
      () => true,
      async () => {
        calls++;
        if (calls < 4) throw new Error('busy');
        return 'done';
      },
      async (ms) => void waits.push(ms),
    );
    assert.equal(value, 'done');
    assert.equal(calls, 4);
    assert.equal(waits.length, 3);
    // full jitter: each delay lies in [0, min(max, initial x 2^n)]
    [100, 200, 250].forEach((cap, i) => assert.ok(waits[i]! >= 0 && waits[i]! <= cap, `wait ${i}: ${waits[i]}`));
  });

  test('gives up after the last attempt with the last error', async () => {
    let calls = 0;
    await assert.rejects(
      withRetry(
        policy,
        () => true,
        async () => {
          throw new Error(`failure ${++calls}`);
        },
        async () => {},
      ),
      /failure 4/,
    );
  });

  test('does not retry an error the predicate rejects', async () => {
    let calls = 0;
    await assert.rejects(
      withRetry(
        policy,
        (err) => (err as Error).message !== 'final',
        async () => {
          calls++;
          throw new Error('final');
        },
        async () => {},
      ),
      /final/,
    );
    assert.equal(calls, 1);
  });
});
