import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { OpenAPIBackend, type Document } from 'openapi-backend';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { createRequestValidation, type RequestParts } from './requestValidation';

// A contract with every request part this service's contract uses: an integer path parameter, query parameters of
// several types, a header parameter, a required JSON body with nested and formatted fields.
const document = {
  openapi: '3.1.0',
  info: { title: 'validation test', version: '1' },
  paths: {
    '/things/{thingId}': {
      post: {
        operationId: 'updateThing',
        parameters: [
          { name: 'thingId', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100 } },
          { name: 'status', in: 'query', schema: { type: 'string', enum: ['open', 'closed'] } },
          { name: 'dryRun', in: 'query', schema: { type: 'boolean' } },
          { name: 'Idempotency-Key', in: 'header', schema: { type: 'string', maxLength: 8 } },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: false,
                required: ['name'],
                properties: {
                  name: { type: 'string', minLength: 1 },
                  amount: { type: 'string', pattern: '^[0-9]+(\\.[0-9]{1,7})?$' },
                  owner: {
                    type: 'object',
                    additionalProperties: false,
                    properties: { email: { type: 'string', format: 'email' } },
                  },
                },
              },
            },
          },
        },
        responses: { '200': { description: 'ok' } },
      },
      get: {
        operationId: 'getThing',
        parameters: [{ name: 'thingId', in: 'path', required: true, schema: { type: 'integer' } }],
        responses: { '200': { description: 'ok' } },
      },
    },
  },
} as unknown as Document;

/** openapi-backend's own validateRequest, configured as the service had it: the reference for equal verdicts. */
async function referenceValidator(doc: Document): Promise<OpenAPIBackend> {
  const api = new OpenAPIBackend({
    definition: doc,
    validate: true,
    coerceTypes: true,
    strict: true,
    quick: true,
    customizeAjv: (_ajv, opts) => {
      const ajv = new Ajv2020({ ...opts, strict: false, allErrors: true });
      addFormats(ajv);
      return ajv;
    },
  });
  api.validateDefinition = () => api.document;
  await api.init();
  return api;
}

interface Case {
  name: string;
  operationId: string;
  method: string;
  path: string;
  parts: RequestParts;
}

const json = { 'content-type': 'application/json' };
const cases: Case[] = [
  {
    name: 'valid, with coerced path and query values',
    operationId: 'updateThing',
    method: 'POST',
    path: '/things/7',
    parts: {
      params: { thingId: '7' },
      query: { limit: '20', status: 'open', dryRun: 'true' },
      headers: { ...json, 'idempotency-key': 'k1' },
      body: { name: 'a', amount: '1.5', owner: { email: 'a@example.com' } },
    },
  },
  {
    name: 'a path parameter out of range and not a number',
    operationId: 'updateThing',
    method: 'POST',
    path: '/things/x',
    parts: { params: { thingId: 'x' }, query: {}, headers: json, body: { name: 'a' } },
  },
  {
    name: 'an unknown query parameter and a bad enum',
    operationId: 'updateThing',
    method: 'POST',
    path: '/things/1',
    parts: { params: { thingId: '1' }, query: { status: 'gone', page: '2' }, headers: json, body: { name: 'a' } },
  },
  {
    name: 'a header parameter too long',
    operationId: 'updateThing',
    method: 'POST',
    path: '/things/1',
    parts: {
      params: { thingId: '1' },
      query: {},
      headers: { ...json, 'idempotency-key': 'x'.repeat(9) },
      body: { name: 'a' },
    },
  },
  {
    name: 'body errors everywhere (missing, extra, pattern, nested format)',
    operationId: 'updateThing',
    method: 'POST',
    path: '/things/1',
    parts: {
      params: { thingId: '1' },
      query: {},
      headers: json,
      body: { amount: '1.12345678', extra: true, owner: { email: 'no' } },
    },
  },
  {
    name: 'a required body missing, no content type',
    operationId: 'updateThing',
    method: 'POST',
    path: '/things/1',
    parts: { params: { thingId: '1' }, query: {}, headers: {}, body: undefined },
  },
  {
    name: 'a required body missing, JSON announced',
    operationId: 'updateThing',
    method: 'POST',
    path: '/things/1',
    parts: { params: { thingId: '1' }, query: {}, headers: json, body: undefined },
  },
  {
    name: 'a JSON null body',
    operationId: 'updateThing',
    method: 'POST',
    path: '/things/1',
    parts: { params: { thingId: '1' }, query: {}, headers: json, body: null },
  },
  {
    name: 'an operation without a body',
    operationId: 'getThing',
    method: 'GET',
    path: '/things/3',
    parts: { params: { thingId: '3' }, query: {}, headers: {}, body: undefined },
  },
];

const copy = <T>(value: T): T => structuredClone(value);

describe('request validation on the routed request', () => {
  test('gives openapi-backend validateRequest verdicts, errors and coerced values, case by case', async () => {
    const validate = await createRequestValidation(document);
    const reference = await referenceValidator(document);
    for (const c of cases) {
      const ours = validate(c.operationId, copy(c.parts));
      const theirs = reference.validateRequest(
        {
          method: c.method,
          path: c.path,
          query: copy(c.parts.query) as Record<string, string>,
          headers: copy(c.parts.headers) as Record<string, string>,
          body: copy(c.parts.body),
        },
        c.operationId,
      );
      assert.equal(ours.valid, theirs.valid, c.name);
      if (ours.valid) {
        const coerced = theirs.coerced as { query: unknown; params: unknown; body: unknown };
        assert.deepEqual(ours.query, coerced.query, `${c.name}: query`);
        assert.deepEqual(ours.params, coerced.params, `${c.name}: path`);
        assert.deepEqual(ours.body, coerced.body, `${c.name}: body`);
      } else {
        const key = (e: { instancePath: string; keyword: string; params: unknown }) =>
          JSON.stringify([e.instancePath, e.keyword, e.params]);
        assert.deepEqual(ours.errors.map(key).sort(), (theirs.errors ?? []).map(key).sort(), c.name);
      }
    }
  });

  test('coerces in place: the integer path and query values come back as numbers and booleans', async () => {
    const validate = await createRequestValidation(document);
    const result = validate('updateThing', copy(cases[0]!.parts));
    assert.ok(result.valid);
    assert.deepEqual(result.params, { thingId: 7 });
    assert.deepEqual(result.query, { limit: 20, status: 'open', dryRun: true });
  });

  test('an operationId the contract does not have throws instead of letting the request through', async () => {
    const validate = await createRequestValidation(document);
    assert.throws(() => validate('deleteThing', copy(cases[0]!.parts)), /not an operation of the contract/);
  });

  test('a contract needing request parsing this module does not do is refused at start-up', async () => {
    const withParam = (param: object) => {
      const doc = copy(document) as unknown as { paths: Record<string, { get: { parameters: object[] } }> };
      doc.paths['/things/{thingId}']!.get.parameters.push(param);
      return doc as unknown as Document;
    };
    for (const param of [
      { name: 'session', in: 'cookie', schema: { type: 'string' } },
      { name: 'ids', in: 'query', schema: { type: 'array', items: { type: 'string' } } },
      { name: 'ids', in: 'query', style: 'form', explode: false, schema: { type: 'string' } },
      { name: 'filter', in: 'query', content: { 'application/json': { schema: { type: 'object' } } } },
    ]) {
      await assert.rejects(createRequestValidation(withParam(param)), /getThing: parameter .* needs request parsing/);
    }
  });

  test("the service's own contract is one this module can validate", async () => {
    const bundle = JSON.parse(readFileSync('openapi/dist/openapi.json', 'utf8')) as Document;
    await createRequestValidation(bundle);
  });
});
