import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeCursor, encodeCursor } from './cursor';

test('a cursor round-trips and stays URL-safe', () => {
  const cursor = { afterId: 'aud_0123456789ABCDEFabcdef', offset: 40 };
  const encoded = encodeCursor(cursor);
  assert.match(encoded, /^[A-Za-z0-9_-]+$/);
  assert.deepEqual(decodeCursor(encoded), cursor);
});

test('anything the service did not produce is refused', () => {
  const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  for (const bad of [
    'not base64!',
    Buffer.from('not json').toString('base64url'),
    enc(null),
    enc({ a: 'key_abc', o: 0 }),
    enc({ a: 'aud_abc', o: -1 }),
    enc({ a: 'aud_abc', o: 1.5 }),
    enc({ a: 'aud_abc' }),
    enc({ a: "aud_x' or 1=1", o: 0 }),
  ]) {
    assert.equal(decodeCursor(bad), undefined, bad);
  }
});
