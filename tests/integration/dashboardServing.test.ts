// The operators' dashboard served by the real service (src/http/dashboard.ts): the built app with its cache headers,
// deep links, its CSP, the page when it is not built, its run-time config and the development outbox view.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rawCall } from '../support/http';
import { startTestService, type TestService } from '../support/service';
import { startSmtpCapture, type SmtpCapture } from '../support/mail';
import { testEmail } from '../support/operators';
import { oauthRedirectUriFor } from '../../src/http/dashboard';
import { DEFAULT_OAUTH_SETTINGS } from '../../src/config';

const INDEX = '<!doctype html><html><head><script type="module" src="/dashboard/assets/x.js"></script></head></html>';
const ASSET = 'console.log("dashboard");';

/** A GET with the path and Host sent exactly as written (fetch resolves `..` and `%2e%2e`, and sets its own Host). */
function rawGet(
  baseUrl: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method: 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const settings = {
  ...DEFAULT_OAUTH_SETTINGS,
  dashboard: {
    redirectUris: ['http://localhost:5174/dashboard/auth/callback', 'http://localhost:8080/elsewhere'],
  },
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the dashboard, built, with OAuth clients and the dev outbox view', () => {
  let svc: TestService;
  let dist: string;
  before(async () => {
    dist = mkdtempSync(join(tmpdir(), 'onboard-dashboard-'));
    mkdirSync(join(dist, 'assets'));
    writeFileSync(join(dist, 'index.html'), INDEX);
    writeFileSync(join(dist, 'assets/x.js'), ASSET);
    writeFileSync(join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    svc = await startTestService({
      DASHBOARD_DIR: dist,
      DASHBOARD_GOOGLE_CLIENT_ID: 'google-client',
      DASHBOARD_GOOGLE_CLIENT_SECRET: 'google-secret',
      DASHBOARD_GITHUB_CLIENT_ID: 'github-client',
      DASHBOARD_GITHUB_CLIENT_SECRET: 'github-secret',
      SEP10_HOME_DOMAIN: 'dashboard.example.com',
      // Behind a proxy at this (loopback) address; its callback, the vite dev server's, and another path.
      PUBLIC_URL: 'http://127.0.0.1:1',
      DASHBOARD_OAUTH_REDIRECT_URIS:
        'http://localhost:5174/dashboard/auth/callback,http://127.0.0.1:1/elsewhere,http://127.0.0.1:1/dashboard/auth/callback',
    });
  });
  after(async () => {
    await svc?.stop();
    rmSync(dist, { recursive: true, force: true });
  });

  test('/dashboard/ answers the app, revalidated on every load, with the dashboard CSP (not the API one)', async () => {
    const res = await rawCall(svc.url, 'GET', '/dashboard/');
    assert.equal(res.status, 200);
    assert.equal(res.text, INDEX);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /style-src 'self' 'unsafe-inline'/);
    assert.match(csp, /img-src 'self' data:/);
    assert.match(csp, /connect-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    const head = await fetch(`${svc.url}/dashboard/`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('cache-control'), 'no-cache');
    // The API keeps its own policy: nothing loosened outside the dashboard.
    const health = await rawCall(svc.url, 'GET', '/health');
    assert.doesNotMatch(health.headers.get('content-security-policy') ?? '', /script-src|unsafe-inline/);
  });

  test('deep links and reloads answer the app; /dashboard/index.html too, never cached', async () => {
    for (const path of [
      '/dashboard/apps/app_x/keys',
      '/dashboard/auth/callback?code=abc&state=xyz',
      '/dashboard/a.b',
    ]) {
      const res = await rawCall(svc.url, 'GET', path);
      assert.equal(res.status, 200, path);
      assert.equal(res.text, INDEX, path);
      assert.equal(res.headers.get('cache-control'), 'no-cache', path);
    }
    const head = await fetch(`${svc.url}/dashboard/apps/app_x`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    const index = await rawCall(svc.url, 'GET', '/dashboard/index.html');
    assert.equal(index.text, INDEX);
    assert.equal(index.headers.get('cache-control'), 'no-cache');
  });

  test('hashed assets are cached for a year, immutable; a missing one is a 404, not the page', async () => {
    const res = await rawCall(svc.url, 'GET', '/dashboard/assets/x.js');
    assert.equal(res.status, 200);
    assert.equal(res.text, ASSET);
    assert.match(res.headers.get('content-type') ?? '', /javascript/);
    assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const missing = await rawCall(svc.url, 'GET', '/dashboard/assets/gone-1234.js');
    assert.equal(missing.status, 404);
    assert.notEqual(missing.text, INDEX);
    const other = await rawCall(svc.url, 'GET', '/dashboard/favicon.svg');
    assert.equal(other.status, 200);
    assert.equal(other.headers.get('cache-control'), 'no-cache');
  });

  test('/dashboard redirects to /dashboard/, keeping the query', async () => {
    const res = await fetch(`${svc.url}/dashboard`, { redirect: 'manual' });
    assert.equal(res.status, 301);
    assert.equal(res.headers.get('location'), '/dashboard/');
    const withQuery = await fetch(`${svc.url}/dashboard?next=%2Fapps`, { redirect: 'manual' });
    assert.equal(withQuery.headers.get('location'), '/dashboard/?next=%2Fapps');
  });

  test('a path that climbs out of the build directory reads nothing outside it', async () => {
    for (const path of [
      '/dashboard/../package.json',
      '/dashboard/%2e%2e/%2e%2e/package.json',
      '/dashboard/..%2f..%2fpackage.json',
      '/dashboard/assets/..%2f..%2f..%2fpackage.json',
      '/dashboard/assets/%2e%2e/%2e%2e/%2e%2e/package.json',
    ]) {
      const res = await rawGet(svc.url, path);
      assert.doesNotMatch(res.body, /"devDependencies"/, path);
      assert.ok(
        res.status === 200 ? res.body === INDEX : res.status >= 400 && res.status < 500,
        `${path}: ${res.status}`,
      );
    }
  });

  test('config.json: version, sign-in methods with both OAuth clients, this origin’s callback, the dev tools', async () => {
    const res = await rawCall(svc.url, 'GET', '/dashboard/config.json');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.deepEqual(res.body, {
      version: svc.deps.version,
      operatorSignIn: {
        email: true,
        google: true,
        github: true,
        stellar: { network: 'testnet', homeDomain: 'dashboard.example.com' },
      },
      // The request names no configured origin: PUBLIC_URL's callback.
      oauthRedirectUri: 'http://127.0.0.1:1/dashboard/auth/callback',
      devOutbox: true,
      devSigner: true,
    });
    // Through the vite dev server (its proxy keeps the Host): the dev server's callback.
    const viaDevServer = await rawGet(svc.url, '/dashboard/config.json', { host: 'localhost:5174' });
    assert.equal(
      (JSON.parse(viaDevServer.body) as { oauthRedirectUri: string }).oauthRedirectUri,
      'http://localhost:5174/dashboard/auth/callback',
    );
    // An origin with no callback of its own, and no PUBLIC_URL: none (another origin's would lose the sign-in state).
    assert.equal(oauthRedirectUriFor(settings, 'http://localhost:8080', undefined), null);
    assert.equal(oauthRedirectUriFor(settings, 'http://localhost:5174', undefined), settings.dashboard.redirectUris[0]);
  });

  test('dev outbox: the newest five messages to the address, newest first, and nobody else’s', async () => {
    const ada = testEmail('ada');
    const bob = testEmail('bob');
    for (let i = 1; i <= 6; i++) {
      await svc.deps.mailer.send({ to: ada, subject: `Message ${i}`, text: `Text ${i}`, kind: 'test-message' });
      await svc.deps.mailer.send({ to: bob, subject: `Bob ${i}`, text: `Bob ${i}`, kind: 'test-message' });
      await sleep(3); // one file per millisecond at most, so the order is the sending order
    }
    const res = await rawCall(svc.url, 'GET', `/dashboard/dev/outbox?to=${encodeURIComponent(ada.toUpperCase())}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const { messages } = res.body as { messages: { kind: string; subject: string; text: string; sentAt: string }[] };
    assert.deepEqual(
      messages.map((m) => m.subject),
      ['Message 6', 'Message 5', 'Message 4', 'Message 3', 'Message 2'],
    );
    assert.deepEqual(messages[0], {
      kind: 'test-message',
      subject: 'Message 6',
      text: 'Text 6',
      sentAt: messages[0]!.sentAt,
    });
    assert.ok(Math.abs(Date.parse(messages[0].sentAt) - Date.now()) < 60_000);
    const none = await rawCall(svc.url, 'GET', `/dashboard/dev/outbox?to=${encodeURIComponent(testEmail('nobody'))}`);
    assert.deepEqual(none.body, { messages: [] });
  });

  test('dev outbox: an operator’s sign-in code, as the dashboard’s sign-in page shows it', async () => {
    const email = testEmail('operator');
    const start = await rawCall(svc.url, 'POST', '/api/v1/auth/email/start', { body: { email } });
    assert.equal(start.status, 200);
    const res = await rawCall(svc.url, 'GET', `/dashboard/dev/outbox?to=${encodeURIComponent(email)}`);
    const [message] = (res.body as { messages: { kind: string; text: string }[] }).messages;
    assert.equal(message?.kind, 'operator-sign-in-code');
    assert.match(message?.text ?? '', /\b\d{6}\b/);
  });

  test('dev outbox: junk, other files and links in the outbox are skipped, nothing outside it is read', async () => {
    const ada = testEmail('ada');
    await svc.deps.mailer.send({ to: ada, subject: 'Real', text: 'Real', kind: 'test-message' });
    const outbox = join(svc.dataDir, 'outbox');
    const future = Date.now() + 60_000;
    writeFileSync(join(outbox, `${future}-junk-00000001.json`), 'not json{');
    writeFileSync(join(outbox, `${future}-junk-00000002.json`), JSON.stringify({ to: 'not a list', subject: 1 }));
    writeFileSync(join(outbox, `${future}-junk-00000003.json`), 'null');
    writeFileSync(join(outbox, 'notes.txt'), JSON.stringify({ to: [{ address: ada }], subject: 'Notes', text: '' }));
    mkdirSync(join(outbox, `${future}-dir-00000004.json`));
    const outside = mkdtempSync(join(tmpdir(), 'onboard-outside-'));
    try {
      const secret = join(outside, 'message.json');
      writeFileSync(secret, JSON.stringify({ to: [{ address: ada }], subject: 'Outside', text: 'Outside' }));
      symlinkSync(secret, join(outbox, `${future}-link-00000005.json`));
      const res = await rawCall(svc.url, 'GET', `/dashboard/dev/outbox?to=${encodeURIComponent(ada)}`);
      assert.equal(res.status, 200);
      assert.deepEqual(
        (res.body as { messages: { subject: string }[] }).messages.map((m) => m.subject),
        ['Real'],
      );
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  test('dev outbox: anything but one email address is a 400 VALIDATION_ERROR', async () => {
    const long = `${'a'.repeat(250)}@example.com`;
    for (const query of [
      '',
      '?to=',
      '?to=not-an-address',
      '?to=..%2F..%2Fetc%2Fpasswd',
      `?to=${encodeURIComponent('../../service-secret@x')}x%00`,
      '?to=a%20b@example.com',
      `?to=${long}`,
      '?to=a@example.com&to=b@example.com',
      '?to[x]=a@example.com',
    ]) {
      const res = await rawCall(svc.url, 'GET', `/dashboard/dev/outbox${query}`);
      assert.equal(res.status, 400, query);
      assert.equal((res.body as { code: string }).code, 'VALIDATION_ERROR', query);
      assert.equal((res.body as { success: boolean }).success, false, query);
      assert.deepEqual(Object.keys((res.body as { details: { fieldErrors: object } }).details.fieldErrors), [
        'query.to',
      ]);
    }
  });
});

describe('the dashboard, not built, with no OAuth clients and the dev outbox view off', () => {
  let svc: TestService;
  let empty: string;
  before(async () => {
    empty = mkdtempSync(join(tmpdir(), 'onboard-dashboard-empty-'));
    svc = await startTestService({ DASHBOARD_DIR: empty, DEV_OUTBOX_VIEW: 'off', LOCALNET: 'off' });
  });
  after(async () => {
    await svc?.stop();
    rmSync(empty, { recursive: true, force: true });
  });

  test('/dashboard/ and deep links answer 503 with a page that says how to build it', async () => {
    for (const path of ['/dashboard/', '/dashboard/apps/app_x']) {
      const res = await rawCall(svc.url, 'GET', path);
      assert.equal(res.status, 503, path);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.match(res.text, /not built/);
      assert.match(res.text, /npm run dashboard:build/);
      assert.doesNotMatch(res.text, /\bat .*\(|ENOENT|\/tmp\//, 'no stack trace, error or path');
    }
    const asset = await rawCall(svc.url, 'GET', '/dashboard/assets/x.js');
    assert.equal(asset.status, 404);
  });

  test('config.json: no OAuth, no callback, no dev tools', async () => {
    const res = await rawCall(svc.url, 'GET', '/dashboard/config.json');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      version: svc.deps.version,
      operatorSignIn: {
        email: true,
        google: false,
        github: false,
        stellar: { network: 'testnet', homeDomain: 'localhost' },
      },
      oauthRedirectUri: null,
      devOutbox: false,
      devSigner: false,
    });
  });

  test('the dev outbox view is a 404, like any unknown path', async () => {
    await svc.deps.mailer.send({ to: 'ada@example.com', subject: 'Code 123456', text: 'x', kind: 'test-message' });
    const res = await rawCall(svc.url, 'GET', '/dashboard/dev/outbox?to=ada@example.com');
    assert.equal(res.status, 404);
    assert.equal((res.body as { code: string }).code, 'NOT_FOUND');
    assert.doesNotMatch(res.text, /123456/);
  });
});

describe('the dev outbox view while mail goes out by SMTP', () => {
  let svc: TestService;
  let smtp: SmtpCapture;
  before(async () => {
    smtp = await startSmtpCapture();
    svc = await startTestService({ SMTP_URL: smtp.url, DEV_OUTBOX_VIEW: 'on' });
  });
  after(async () => {
    await svc?.stop();
    await smtp?.stop();
  });

  test('is not served, whatever DEV_OUTBOX_VIEW says, and config.json says so', async () => {
    const res = await rawCall(svc.url, 'GET', '/dashboard/dev/outbox?to=ada@example.com');
    assert.equal(res.status, 404);
    const config = await rawCall(svc.url, 'GET', '/dashboard/config.json');
    assert.equal((config.body as { devOutbox: boolean }).devOutbox, false);
  });
});
