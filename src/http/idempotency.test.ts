import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callerScope } from './idempotency';

const apiKey = { appId: 'app_1', keyId: 'key_1', type: 'secret', network: 'testnet' } as const;
const publishable = { ...apiKey, keyId: 'key_2', type: 'publishable' } as const;

test("a request is scoped to its session's operator or end user, else to its API key", () => {
  assert.equal(
    callerScope({ operator: { operatorId: 'op_1', sessionId: 'ses_1' }, accessToken: 't' }),
    'operator:op_1',
  );
  assert.equal(
    callerScope({
      apiKey: publishable,
      user: { userId: 'usr_1', sessionId: 'ses_2', appId: 'app_1' },
      accessToken: 't',
    }),
    'user:usr_1',
  );
  assert.equal(callerScope({ apiKey }), 'key:key_1');
});

test('two users of one app (one publishable key) get different scopes; ids of different kinds never collide', () => {
  const user = (userId: string) =>
    callerScope({ apiKey: publishable, user: { userId, sessionId: 'ses_x', appId: 'app_1' }, accessToken: 't' });
  assert.notEqual(user('usr_1'), user('usr_2'));
  assert.notEqual(callerScope({ operator: { operatorId: 'key_1', sessionId: 'ses_1' } }), callerScope({ apiKey }));
});

test("a session whose principal is not named gets no scope, never the app key's", () => {
  assert.equal(callerScope({ apiKey: publishable, accessToken: 'token' }), undefined);
  assert.equal(callerScope({}), undefined);
});
