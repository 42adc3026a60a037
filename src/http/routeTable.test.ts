import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRouteTable } from './routeTable';

const route = createRouteTable();

test('static paths and templates resolve to their operation, most specific first', () => {
  assert.deepEqual(route('POST', '/v1/wallets/fund'), { kind: 'operation', operationId: 'fundWallet', params: {} });
  assert.deepEqual(route('GET', '/v1/tx/history'), { kind: 'operation', operationId: 'getTxHistory', params: {} });
  const hash = 'ab'.repeat(32);
  assert.deepEqual(route('GET', `/v1/tx/${hash}`), {
    kind: 'operation',
    operationId: 'getTransaction',
    params: { hash },
  });
  assert.deepEqual(route('DELETE', '/api/v1/apps/app_1/members/mem_2'), {
    kind: 'operation',
    operationId: 'removeMember',
    params: { appId: 'app_1', memberId: 'mem_2' },
  });
});

test('path parameters are percent-decoded', () => {
  assert.deepEqual(route('GET', '/v1/users/a%20b'), {
    kind: 'operation',
    operationId: 'getUser',
    params: { externalId: 'a b' },
  });
});

test('unknown paths are notFound; known paths with another method list what is allowed', () => {
  assert.deepEqual(route('GET', '/v1/nope'), { kind: 'notFound' });
  assert.deepEqual(route('DELETE', '/v1/wallets/fund'), { kind: 'methodNotAllowed', allow: ['POST'] });
  assert.deepEqual(route('PUT', '/v1/auth-policy/rows'), { kind: 'methodNotAllowed', allow: ['GET', 'POST'] });
});
