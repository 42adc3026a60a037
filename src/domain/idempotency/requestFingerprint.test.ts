import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson, requestFingerprint } from './requestFingerprint';

const base = {
  operationId: 'rotateApiKey',
  path: { appId: 'app_1', keyId: 'key_1' },
  query: {},
  body: { label: 'ci', expiresAt: null },
};

test('key order in the body, at any depth, does not change the fingerprint', () => {
  const a = requestFingerprint({ ...base, body: { a: 1, nested: { x: [1, { p: true, q: 'é' }], y: 'z' } } });
  const b = requestFingerprint({ ...base, body: { nested: { y: 'z', x: [1, { q: 'é', p: true }] }, a: 1 } });
  assert.equal(a, b);
});

test('a different path parameter, body value, query or operation is a different request', () => {
  const reference = requestFingerprint(base);
  assert.notEqual(requestFingerprint({ ...base, path: { appId: 'app_1', keyId: 'key_2' } }), reference);
  assert.notEqual(requestFingerprint({ ...base, body: { label: 'cd', expiresAt: null } }), reference);
  assert.notEqual(
    requestFingerprint({ ...base, body: { label: 'ci' } }),
    reference,
    'an explicit null is not an absent member',
  );
  assert.notEqual(requestFingerprint({ ...base, query: { dryRun: true } }), reference);
  assert.notEqual(requestFingerprint({ ...base, operationId: 'createApiKey' }), reference);
});

test('array order counts; a string is not the number it spells', () => {
  assert.notEqual(
    requestFingerprint({ ...base, body: { ids: [1, 2] } }),
    requestFingerprint({ ...base, body: { ids: [2, 1] } }),
  );
  assert.notEqual(
    requestFingerprint({ ...base, body: { amount: '1' } }),
    requestFingerprint({ ...base, body: { amount: 1 } }),
  );
});

test('canonical JSON: sorted keys, no whitespace, undefined members dropped, no body is null', () => {
  assert.equal(
    canonicalJson({ b: [1, 'x', null], a: { d: undefined, c: false } }),
    '{"a":{"c":false},"b":[1,"x",null]}',
  );
  assert.equal(canonicalJson(undefined), 'null');
  assert.equal(requestFingerprint({ ...base, body: undefined }), requestFingerprint({ ...base, body: null }));
  assert.match(requestFingerprint(base), /^[0-9a-f]{64}$/);
});
