// GET /health, GET /ready, the API reference and the bundle, against the real service on a fresh database.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, rawCall } from '../support/http';
import { startTestService, type TestService } from '../support/service';

describe('system endpoints', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(async () => {
    await svc?.stop();
  });

  test('GET /health answers 200 HEALTHY with version and uptime', async () => {
    const res = await call(svc.url, 'getHealth', 'GET', '/health');
    assert.equal(res.status, 200);
    assert.equal(res.body.code, 'HEALTHY');
    assert.equal(res.body.success, true);
    assert.equal(res.body.content.status, 'ok');
    assert.match(res.body.content.version, /^\d+\.\d+\.\d+/);
    assert.match(res.headers.get('x-request-id') ?? '', /^req_[0-9a-f]{32}$/);
  });

  test('GET /ready checks the database and the in-process localnet; an unconfigured network does not fail it', async () => {
    const res = await call(svc.url, 'getReadiness', 'GET', '/ready');
    assert.equal(res.status, 200);
    assert.equal(res.body.content.checks.database.status, 'up');
    assert.equal(res.body.content.checks['stellar:testnet'].status, 'up');
    assert.match(res.body.content.checks['stellar:testnet'].detail, /^latest ledger \d+$/);
    assert.equal(res.body.content.checks['stellar:mainnet'].status, 'not_configured');
  });

  test('with LOCALNET=off and no RPC URL, testnet is reported not_configured', async () => {
    const off = await startTestService({ LOCALNET: 'off' });
    try {
      const res = await call(off.url, 'getReadiness', 'GET', '/ready');
      assert.equal(res.status, 200);
      assert.equal(res.body.content.checks['stellar:testnet'].status, 'not_configured');
      assert.equal(off.localnet, undefined);
    } finally {
      await off.stop();
    }
  });

  test('GET /ready answers 503 SERVICE_UNAVAILABLE when a configured Stellar RPC is unreachable', async () => {
    const down = await startTestService({ STELLAR_TESTNET_RPC_URL: 'http://127.0.0.1:9/' });
    try {
      const res = await call(down.url, 'getReadiness', 'GET', '/ready');
      assert.equal(res.status, 503);
      assert.equal(res.body.code, 'SERVICE_UNAVAILABLE');
      assert.equal(res.body.details.checks['stellar:testnet'].status, 'down');
      assert.equal(res.body.details.checks.database.status, 'up');
      assert.equal(res.headers.get('retry-after'), '5');
    } finally {
      await down.stop();
    }
  });

  test('GET /ready answers 503 when the database is gone', async () => {
    const other = await startTestService();
    await other.deps.db.destroy();
    try {
      const res = await call(other.url, 'getReadiness', 'GET', '/ready');
      assert.equal(res.status, 503);
      assert.equal(res.body.details.checks.database.status, 'down');
    } finally {
      await other.stop().catch(() => {});
    }
  });

  test('a valid incoming X-Request-Id is echoed; an unsafe one is replaced', async () => {
    const ok = await rawCall(svc.url, 'GET', '/health', { headers: { 'x-request-id': 'client-123' } });
    assert.equal(ok.headers.get('x-request-id'), 'client-123');
    const bad = await rawCall(svc.url, 'GET', '/health', { headers: { 'x-request-id': 'x'.repeat(300) } });
    assert.match(bad.headers.get('x-request-id') ?? '', /^req_/);
  });

  test('/openapi.json serves the bundle and /docs renders it', async () => {
    const spec = await rawCall(svc.url, 'GET', '/openapi.json');
    assert.equal(spec.status, 200);
    assert.equal((spec.body as { openapi: string }).openapi, '3.1.0');
    const docs = await rawCall(svc.url, 'GET', '/docs');
    assert.equal(docs.status, 200);
    assert.match(docs.headers.get('content-type') ?? '', /text\/html/);
    assert.match(docs.text, /redoc\.standalone\.js/);
    const js = await rawCall(svc.url, 'GET', '/docs/redoc.standalone.js');
    assert.equal(js.status, 200);
    assert.ok(js.text.length > 100_000);
  });
});
