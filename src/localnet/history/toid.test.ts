import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventId, parseEventCursor, parseInt64, toidFromBigInt, toidToBigInt } from './toid';

describe('TOID cursors', () => {
  test('getTransactions cursor = (ledger << 32) | (order << 12) | 1', () => {
    assert.equal(toidToBigInt({ ledger: 5, tx: 2, op: 1 }).toString(), String(5 * 2 ** 32 + 2 * 4096 + 1));
    assert.deepEqual(toidFromBigInt(toidToBigInt({ ledger: 123456, tx: 7, op: 1 })), { ledger: 123456, tx: 7, op: 1 });
  });

  test('event ids are zero-padded "<toid>-<event>" and parse back', () => {
    const id = eventId({ ledger: 3, tx: 1, op: 0 }, 2);
    assert.equal(id, '0000000012884905984-0000000002');
    assert.deepEqual(parseEventCursor(id), { ledger: 3, tx: 1, op: 0, event: 2 });
    assert.equal(parseEventCursor('nonsense'), undefined);
  });

  test('parseInt64 accepts what Go ParseInt accepts', () => {
    assert.equal(parseInt64('42'), 42n);
    assert.equal(parseInt64('-1'), -1n);
    assert.equal(parseInt64('9223372036854775808'), undefined);
    assert.equal(parseInt64('1e3'), undefined);
  });
});
