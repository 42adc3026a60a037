// getHealth (GET /health) against the real service on a fresh database, and the request id every answer carries.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, rawCall } from '../../support/http';
import { startTestService, type TestService } from '../../support/service';

describe('getHealth', () => {
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

  test('a valid incoming X-Request-Id is echoed; an unsafe one is replaced', async () => {
    const ok = await rawCall(svc.url, 'GET', '/health', { headers: { 'x-request-id': 'client-123' } });
    assert.equal(ok.headers.get('x-request-id'), 'client-123');
    const bad = await rawCall(svc.url, 'GET', '/health', { headers: { 'x-request-id': 'x'.repeat(300) } });
    assert.match(bad.headers.get('x-request-id') ?? '', /^req_/);
  });
});
