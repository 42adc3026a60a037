// The API reference and the contract's bundle, served by the real service.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rawCall } from '../support/http';
import { startTestService, type TestService } from '../support/service';

describe('the API reference', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(async () => {
    await svc?.stop();
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
