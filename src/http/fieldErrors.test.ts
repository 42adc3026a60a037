import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ErrorObject } from 'ajv';
import { toFieldErrors } from './fieldErrors';

function err(
  instancePath: string,
  keyword: string,
  params: Record<string, unknown> = {},
  message?: string,
): ErrorObject {
  return { instancePath, keyword, params, schemaPath: '#', message } as ErrorObject;
}

test('request parts map to plain body paths and prefixed query/path/header names', () => {
  const out = toFieldErrors([
    err('/requestBody/operation/amount', 'pattern', {}, 'must match pattern'),
    err('/requestBody', 'required', { missingProperty: 'name' }),
    err('/query/limit', 'maximum', {}, 'must be <= 100'),
    err('/path/appId', 'pattern', {}, 'must match pattern'),
    err('/header/idempotency-key', 'maxLength', {}, 'must NOT have more than 255 characters'),
  ]);
  assert.deepEqual(
    { ...out },
    {
      'operation.amount': ['must match pattern'],
      name: ['is required'],
      'query.limit': ['must be <= 100'],
      'path.appId': ['must match pattern'],
      'header.idempotency-key': ['must NOT have more than 255 characters'],
    },
  );
});

test('Object.prototype member names are plain field names (no 500, nothing polluted)', () => {
  const names = [
    'toString',
    'constructor',
    '__proto__',
    'hasOwnProperty',
    'valueOf',
    'isPrototypeOf',
    'propertyIsEnumerable',
    'toLocaleString',
  ];
  const out = toFieldErrors(names.map((n) => err('/requestBody', 'additionalProperties', { additionalProperty: n })));
  assert.equal(Object.getPrototypeOf(out), null);
  assert.deepEqual(Object.keys(out).sort(), [...names].sort());
  for (const n of names) assert.deepEqual(out[n], ['is not allowed']);
  // Nested too (`settings.constructor`), and a repeated message is listed once.
  const nested = toFieldErrors([
    err('/requestBody/settings', 'additionalProperties', { additionalProperty: 'constructor' }),
    err('/requestBody/settings', 'additionalProperties', { additionalProperty: 'constructor' }),
  ]);
  assert.deepEqual(nested['settings.constructor'], ['is not allowed']);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(typeof ({} as Record<string, unknown>).toString, 'function');
});

test('oneOf/anyOf summaries are skipped; no error at all still names the body', () => {
  assert.deepEqual(
    {
      ...toFieldErrors([
        err('/requestBody', 'oneOf', {}, 'must match exactly one schema'),
        err('/requestBody/type', 'enum', { allowedValues: ['a', 'b'] }),
      ]),
    },
    { type: ['must be one of: a, b'] },
  );
  assert.deepEqual({ ...toFieldErrors([]) }, { body: ['is invalid'] });
  assert.deepEqual({ ...toFieldErrors(undefined) }, { body: ['is invalid'] });
});
