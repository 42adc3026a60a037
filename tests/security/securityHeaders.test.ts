// Security finding 7 (issue #23): no security headers anywhere, and no `Cache-Control: no-store` on answers that carry
// tokens or secrets. Now every answer has nosniff, no framing and a CSP (none for JSON; exactly what Redoc needs on
// /docs), and every API answer has no-store.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rawCall } from '../support/http';
import { createDpopKey } from '../support/dpop';
import { latestCode, sendWithProof, signInOperator, testEmail, type OperatorClient } from '../support/operators';
import { startTestService, type TestService } from '../support/service';

let svc: TestService;
let operator: OperatorClient;

before(async () => {
  svc = await startTestService({ LOCALNET: 'off' });
  operator = await signInOperator(svc);
});
after(async () => {
  await svc?.stop();
});

function assertHardened(headers: Headers, what: string): void {
  assert.equal(headers.get('x-content-type-options'), 'nosniff', what);
  assert.equal(headers.get('x-frame-options'), 'DENY', what);
  assert.match(headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/, what);
  assert.equal(headers.get('referrer-policy'), 'no-referrer', what);
  assert.equal(headers.get('strict-transport-security'), null, `${what}: no HSTS on plain http`);
}

describe('security headers', () => {
  test('JSON answers: a CSP that allows nothing, nosniff, no framing; errors too', async () => {
    const health = await rawCall(svc.url, 'GET', '/health');
    assertHardened(health.headers, '/health');
    assert.match(health.headers.get('content-security-policy')!, /default-src 'none'/);
    const missing = await rawCall(svc.url, 'GET', '/v1/no-such-path');
    assert.equal(missing.status, 404);
    assertHardened(missing.headers, 'a 404');
  });

  test('answers carrying tokens or secrets are no-store: sign-in, refresh, a new API key, a rotated key', async () => {
    const email = testEmail('headers');
    assert.equal((await rawCall(svc.url, 'POST', '/api/v1/auth/email/start', { body: { email } })).status, 200);
    const signIn = await sendWithProof(svc.url, await createDpopKey(), {}, 'POST', '/api/v1/auth/email/verify', {
      body: { email, code: latestCode(svc, email) },
    });
    assert.equal(signIn.status, 200, signIn.text);
    assert.equal(signIn.headers.get('cache-control'), 'no-store', 'sign-in (tokens)');
    const app = await operator.call('createApp', 'POST', '/api/v1/apps', {
      body: { name: 'Headers app', network: 'testnet' },
    });
    assert.equal(app.status, 201, app.text);
    assert.equal(app.headers.get('cache-control'), 'no-store');
    const key = await operator.call(
      'createApiKey',
      'POST',
      `/api/v1/apps/${app.body.content.appId ?? app.body.content.id}/api-keys`,
      { body: { type: 'secret', label: 'ci' } },
    );
    assert.equal(key.status, 201, key.text);
    assert.equal(key.headers.get('cache-control'), 'no-store');
    const rotated = await operator.rawCall(
      'POST',
      `/api/v1/apps/${app.body.content.appId}/api-keys/${key.body.content.keyId}/rotate`,
      { body: {} },
    );
    assert.ok(rotated.status === 200 || rotated.status === 201, rotated.text);
    assert.ok(rotated.body.content.key, 'the rotated key carries its secret');
    assert.equal(rotated.headers.get('cache-control'), 'no-store', 'rotateApiKey (secret)');
    const refresh = await operator.rawCall('POST', '/api/v1/auth/refresh', {
      body: { refreshToken: operator.refreshToken },
    });
    assert.equal(refresh.status, 200, refresh.text);
    assert.equal(refresh.headers.get('cache-control'), 'no-store');
    const start = await rawCall(svc.url, 'POST', '/api/v1/auth/email/start', { body: { email: 'nobody@example.com' } });
    assert.equal(start.headers.get('cache-control'), 'no-store');
  });

  test('/docs: a CSP allowing scripts from this origin only, and no inline script on the page', async () => {
    const res = await fetch(`${svc.url}/docs`);
    assert.equal(res.status, 200);
    const csp = res.headers.get('content-security-policy')!;
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /script-src[^;]*unsafe-inline/);
    const html = await res.text();
    assert.doesNotMatch(html, /<script>(?!<\/script>)/, 'no inline script');
    assert.equal((await fetch(`${svc.url}/docs/init.js`)).status, 200);
  });
});
