import { test } from 'node:test';
import assert from 'node:assert/strict';
import { operations } from '../../generated/server/catalogue.gen';
import { createRouteTable, type RouteMatch } from './routeTable';

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

test('the shape index answers as trying every template in order would, for every template, filled in and mangled', () => {
  // The table before its index: every template's regex, most specific first.
  const templates = Object.values(operations)
    .map((op) => ({
      ...op,
      method: op.method.toUpperCase(),
      regex: new RegExp(`^${op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '([^/]+)')}/?$`),
      names: [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
      specificity: op.path.replace(/\{[^}]+\}/g, '').length,
    }))
    .sort((a, b) => b.specificity - a.specificity);
  const scan = (method: string, path: string): RouteMatch => {
    const allow = new Set<string>();
    for (const t of templates) {
      const m = t.regex.exec(path);
      if (!m) continue;
      if (t.method === method || (method === 'HEAD' && t.method === 'GET')) {
        try {
          const params = Object.fromEntries(t.names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]));
          return { kind: 'operation', operationId: t.operationId, params };
        } catch {
          continue;
        }
      }
      allow.add(t.method);
    }
    return allow.size ? { kind: 'methodNotAllowed', allow: [...allow].sort() } : { kind: 'notFound' };
  };
  const paths = new Set<string>(['/', '//', '', 'v1/wallets/fund', '/v1', '/v1/', '/api/v1/apps/', '/health//']);
  for (const op of Object.values(operations)) {
    for (const fill of ['x', 'history', 'a%20b', '%zz', 'fund']) {
      const path = op.path.replace(/\{[^}]+\}/g, fill);
      for (const p of [path, `${path}/`, `${path}//`, `${path}/x`, path.slice(0, -1), path.toUpperCase()]) paths.add(p);
    }
  }
  let operationsFound = 0;
  for (const path of paths) {
    for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      const expected = scan(method, path);
      if (expected.kind === 'operation') operationsFound++;
      assert.deepEqual(route(method, path), expected, `${method} ${path}`);
    }
  }
  assert.ok(operationsFound > Object.keys(operations).length, 'the comparison reached the operations');
});
