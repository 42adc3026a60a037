import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unsafeTextErrors } from './textSafety';

const clean = { body: undefined, query: {}, params: {} };

test('a request without U+0000 or unpaired surrogates has no errors (a surrogate pair is fine)', () => {
  assert.equal(
    unsafeTextErrors({
      ...clean,
      body: { name: 'Emoji 🚀', tags: ['a', 'b'], nested: { n: 1, ok: true, nil: null } },
      query: { search: 'x' },
      params: { appId: 'app_1' },
      idempotencyKey: 'k-1',
    }),
    undefined,
  );
  assert.equal(unsafeTextErrors(clean), undefined);
});

test('U+0000 is named wherever it is: body value, nested, array item, query, path, Idempotency-Key', () => {
  const errors = unsafeTextErrors({
    body: { name: 'a\u0000', operation: { memo: '\u0000' }, list: ['ok', 'b\u0000'] },
    query: { search: 'a\u0000b' },
    params: { appId: '\u0000' },
    idempotencyKey: 'k\u0000',
  });
  assert.deepEqual(Object.keys(errors ?? {}).sort(), [
    'header.idempotency-key',
    'list.1',
    'name',
    'operation.memo',
    'path.appId',
    'query.search',
  ]);
  assert.match(errors!.name![0]!, /U\+0000/);
});

test('a top-level string body and repeated query values are checked', () => {
  assert.ok(unsafeTextErrors({ ...clean, body: '\u0000' })?.body);
  assert.ok(unsafeTextErrors({ ...clean, query: { status: ['ok', 'x\u0000'] } })?.['query.status.1']);
});

test('lone surrogates (high or low) are refused, a pair is not', () => {
  for (const bad of ['\ud800', 'a\udfffb', '\udc00\ud800', 'x\ud83d']) {
    const errors = unsafeTextErrors({ ...clean, body: { memo: bad } });
    assert.match(errors?.memo?.[0] ?? '', /well-formed Unicode/, JSON.stringify(bad));
  }
  assert.equal(unsafeTextErrors({ ...clean, body: { memo: '\ud83d\ude80' } }), undefined);
});

test('a property or parameter name holding U+0000 is named by its parent', () => {
  assert.match(unsafeTextErrors({ ...clean, body: { 'na\u0000me': 'x' } })?.body?.[0] ?? '', /property names/);
  assert.ok(unsafeTextErrors({ ...clean, body: { settings: { '\ud800': 1 } } })?.settings);
  assert.match(unsafeTextErrors({ ...clean, query: { 'a\u0000': 'x' } })?.query?.[0] ?? '', /parameter names/);
});

test('Object.prototype names as fields are plain keys of a null-prototype map', () => {
  const body = JSON.parse(
    '{"__proto__":"\\u0000","toString":"\\u0000","constructor":{"prototype":"\\u0000"},"hasOwnProperty":"\\ud800"}',
  );
  const errors = unsafeTextErrors({ ...clean, body });
  assert.ok(errors);
  assert.equal(Object.getPrototypeOf(errors), null);
  assert.deepEqual(Object.keys(errors).sort(), ['__proto__', 'constructor.prototype', 'hasOwnProperty', 'toString']);
  assert.equal(({} as Record<string, unknown>).toString, Object.prototype.toString);
});

test('the walk is bounded: a body deeper than the limit does not throw', () => {
  let deep: unknown = '\u0000';
  for (let i = 0; i < 10_000; i++) deep = { a: deep };
  assert.doesNotThrow(() => unsafeTextErrors({ ...clean, body: deep }));
});
