import { test } from 'node:test';
import assert from 'node:assert/strict';
import { displayBytes, isSafeText, safeJson, safeText } from './safeText';

test('displayBytes: NUL and other controls shown as U+FFFD, invalid UTF-8 too, valid text unchanged', () => {
  assert.equal(displayBytes(Buffer.from([0x61, 0x00, 0x62])), 'a\uFFFDb');
  assert.equal(displayBytes(Buffer.from([0xff, 0xfe, 0x41])), '\uFFFD\uFFFDA');
  assert.equal(displayBytes(Buffer.from('order 42 ✓', 'utf8')), 'order 42 ✓');
  assert.equal(displayBytes(Buffer.from('tab\there\n', 'utf8')), 'tab\uFFFDhere\uFFFD');
  assert.equal(displayBytes(new Uint8Array(0)), '');
  assert.equal(displayBytes(Buffer.alloc(28, 0)), '\uFFFD'.repeat(28));
});

test('safeText: lone surrogates replaced, pairs kept', () => {
  assert.equal(safeText('a\ud800b'), 'a\uFFFDb');
  assert.equal(safeText('a\udc00'), 'a\uFFFD');
  assert.equal(safeText('😀'), '😀');
  assert.equal(isSafeText('😀 ok'), true);
  assert.equal(isSafeText('a\u0000'), false);
  assert.equal(isSafeText('a\ud800'), false);
  assert.equal(isSafeText('a\ud800'), false, 'the same answer twice (no regex state left behind)');
});

test('safeJson: every string and key, nested', () => {
  assert.deepEqual(safeJson({ 'k\u0000': ['a\u0000', { b: 'c\ud800' }], n: 1, t: true, z: null }), {
    'k\uFFFD': ['a\uFFFD', { b: 'c\uFFFD' }],
    n: 1,
    t: true,
    z: null,
  });
});
