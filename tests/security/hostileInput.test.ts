// Security finding 6 (issue #23): client errors answered 500. A body property named after an Object.prototype member
// broke the field-error map, and U+0000 in a memo, an app name, a key label or the users search reached PostgreSQL,
// which refuses it. Every such request is now a 400 VALIDATION_ERROR with the envelope, naming the field; lone
// surrogates too (they would be stored as U+FFFD).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rawCall } from '../support/http';
import type { SeededCredentials } from '../support/credentials';
import { signInOperator, type OperatorClient } from '../support/operators';
import { startTestService, type TestService } from '../support/service';
import { signInUser, type UserClient } from '../support/users';
import { appWithWallet } from '../support/funding';

let svc: TestService;
let creds: SeededCredentials;
let operator: OperatorClient;
let user: UserClient;
let appId: string;

before(async () => {
  svc = await startTestService();
  operator = await signInOperator(svc);
  const created = await operator.call('createApp', 'POST', '/api/v1/apps', {
    body: { name: 'Hostile input', network: 'testnet' },
  });
  assert.equal(created.status, 201, created.text);
  appId = created.body.content.appId;
  ({ creds } = await appWithWallet(svc, { settings: { fundingMode: 'immediate' } }));
  user = await signInUser(svc, creds);
});
after(async () => {
  await svc?.stop();
});

const PROTOTYPE_NAMES = [
  'toString',
  'constructor',
  '__proto__',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
];

function assertValidationError(res: { status: number; body: any; text: string }, field?: string): void {
  assert.equal(res.status, 400, res.text);
  assert.equal(res.body?.code, 'VALIDATION_ERROR', res.text);
  assert.equal(res.body?.success, false);
  if (field) assert.ok(res.body.details?.fieldErrors?.[field], `${field} named: ${res.text}`);
}

describe('property names of Object.prototype are plain unknown fields', () => {
  for (const name of PROTOTYPE_NAMES) {
    test(`"${name}" in a body: unauthenticated, keyed and session operations answer 400`, async () => {
      const body = `{"${name}": 1}`;
      const headers = { 'content-type': 'application/json' };
      // Keyed, before any session: email sign-in start.
      const keyed = await rawCall(svc.url, 'POST', '/v1/auth/email/start', {
        headers: { ...headers, 'x-service-api-key': creds.publishableKey },
        rawBody: body,
      });
      assertValidationError(keyed);
      // Operator session: create an app.
      assertValidationError(await operator.rawCall('POST', '/api/v1/apps', { headers, rawBody: body }));
      // End-user session: build a transaction.
      assertValidationError(await user.rawCall('POST', '/v1/tx/build', { headers, rawBody: body }));
    });
  }

  test('a nested Object.prototype name is refused too, and nothing is polluted', async () => {
    const res = await operator.rawCall('POST', '/api/v1/apps', {
      headers: { 'content-type': 'application/json' },
      rawBody: '{"name":"x","settings":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}}',
    });
    assert.equal(res.status, 400, res.text);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe('U+0000 and unpaired surrogates are refused, naming the field', () => {
  test('a text memo with NUL', async () => {
    const res = await user.rawCall('POST', '/v1/tx/build', {
      body: {
        operation: {
          type: 'payment',
          destination: user.signIn.wallet.publicKey,
          asset: 'native',
          amount: '1',
          memo: 'a\u0000b',
        },
      },
    });
    assertValidationError(res, 'operation.memo');
  });

  test('an app name with NUL', async () => {
    assertValidationError(await operator.rawCall('POST', '/api/v1/apps', { body: { name: 'bad\u0000name' } }), 'name');
  });

  test('an API key label with NUL', async () => {
    const res = await operator.rawCall('POST', `/api/v1/apps/${appId}/api-keys`, {
      body: { type: 'secret', label: 'ci\u0000' },
    });
    assertValidationError(res, 'label');
  });

  test('the Dashboard users search with NUL (a query parameter)', async () => {
    assertValidationError(await operator.rawCall('GET', `/api/v1/apps/${appId}/users?search=a%00b`), 'query.search');
  });

  test('a lone surrogate in a string', async () => {
    const res = await operator.rawCall('POST', '/api/v1/apps', {
      headers: { 'content-type': 'application/json' },
      rawBody: '{"name":"bad\\ud800name"}',
    });
    assertValidationError(res, 'name');
    assert.match(res.body.details.fieldErrors.name.join(' '), /well-formed Unicode/);
  });

  test('NUL in a property name', async () => {
    assertValidationError(
      await operator.rawCall('POST', '/api/v1/apps', {
        headers: { 'content-type': 'application/json' },
        rawBody: '{"na\\u0000me":"x"}',
      }),
      'body',
    );
  });

  test('a well-formed surrogate pair (an emoji) is taken', async () => {
    const res = await operator.call('createApp', 'POST', '/api/v1/apps', {
      body: { name: 'Emoji 🚀 app', network: 'testnet' },
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.content.name, 'Emoji 🚀 app');
  });
});
