// @onboard/react's KycStep in headless Chromium against the live service with the sandbox KYC provider: a page built
// here from tests/browser/kycStep/page.tsx (the library from its sources) signs a user in with an email code; the
// step shows "not verified", its button opens the sandbox page in a new tab (reserved in the click, so no popup
// blocker stops it) while the step waits for the decision; Approve there turns the step to verified. A second user
// reloads while pending (the step follows the verification it finds) and is rejected. Screenshots under
// test-output/browser/kyc-step-*.png.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import react from '@vitejs/plugin-react';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { build, type Rolldown } from 'vite';
import { projectRoot } from '../../src/paths';
import { launchChromium, screenshot } from '../support/browser';
import { seedCredentials } from '../support/credentials';
import { latestCode, testEmail } from '../support/operators';
import { startTestService, type TestService } from '../support/service';

let svc: TestService;
let server: Server;
let pageUrl: string;
let browser: Browser;
const pageErrors: string[] = [];

/** The page's files, built in memory: its script, its stylesheet. */
async function buildPage(): Promise<Map<string, { type: string; body: string | Uint8Array }>> {
  const nodeEnv = process.env.NODE_ENV; // Vite's build sets NODE_ENV for the whole process
  const output = await build({
    configFile: false,
    logLevel: 'warn',
    root: join(projectRoot, 'tests', 'browser', 'kycStep'),
    plugins: [react()],
    resolve: {
      alias: {
        '@onboard/core': join(projectRoot, 'sdk/core/src/index.ts'),
        '@onboard/react/styles.css': join(projectRoot, 'sdk/react/styles.css'),
        '@onboard/react': join(projectRoot, 'sdk/react/src/index.ts'),
      },
    },
    build: {
      write: false,
      sourcemap: false,
      rolldownOptions: { input: join(projectRoot, 'tests', 'browser', 'kycStep', 'page.tsx') },
    },
  }).finally(() => {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  });
  const files = new Map<string, { type: string; body: string | Uint8Array }>();
  for (const item of (Array.isArray(output) ? output : [output as Rolldown.RolldownOutput]).flatMap((o) => o.output)) {
    const body = item.type === 'chunk' ? item.code : item.source;
    const type = item.fileName.endsWith('.css') ? 'text/css' : 'text/javascript';
    files.set(`/${item.fileName}`, { type, body });
  }
  const entry = [...files.keys()].find((f) => f.endsWith('.js') && f.includes('page'));
  const styles = [...files.keys()].filter((f) => f.endsWith('.css'));
  files.set('/', {
    type: 'text/html',
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>KycStep</title>
${styles.map((f) => `<link rel="stylesheet" href="${f}">`).join('')}</head>
<body><main id="root"></main><script type="module" src="${entry}"></script></body></html>`,
  });
  return files;
}

before(async () => {
  const files = await buildPage();
  server = createServer((req, res) => {
    const file = files.get(new URL(req.url ?? '/', 'http://page').pathname);
    res.writeHead(file ? 200 : 404, { 'content-type': file?.type ?? 'text/plain' }).end(file?.body ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  svc = await startTestService({ KYC_SANDBOX: 'on' });
  const creds = await seedCredentials(svc.deps.db, { origins: [origin] });
  pageUrl = `${origin}/?${new URLSearchParams({ api: svc.url, key: creds.publishableKey }).toString()}`;
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await svc?.stop();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

async function signedInPage(context: BrowserContext, label: string): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (err) => pageErrors.push(err.message));
  await page.goto(pageUrl);
  const email = testEmail(label);
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Send code' }).click();
  await page.getByLabel('Code').waitFor();
  await page.getByLabel('Code').fill(latestCode(svc, email));
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.getByRole('heading', { name: 'Identity verification' }).waitFor();
  return page;
}

const status = (page: Page, value: string) => page.locator(`[data-testid="kyc-status"][data-status="${value}"]`);

describe('KycStep with the sandbox provider', () => {
  test('not verified -> the sandbox page opens in a new tab -> waiting -> approved there -> verified', async () => {
    const context = await browser.newContext({ viewport: { width: 560, height: 200 } });
    const page = await signedInPage(context, 'kyc-step');
    await status(page, 'none').waitFor();
    assert.match(await status(page, 'none').innerText(), /Not verified yet/);
    await screenshot(page, 'kyc-step-01-not-verified');

    const opened = page.waitForEvent('popup');
    await page.getByRole('button', { name: 'Verify my identity' }).click();
    const sandbox = await opened;
    await sandbox.getByRole('heading', { name: 'Sandbox identity verification' }).waitFor();
    assert.ok(sandbox.url().startsWith(`${svc.url}/sandbox/kyc/kys_`), sandbox.url());
    assert.equal(await sandbox.evaluate(() => window.opener), null, 'the provider’s page cannot reach the app’s');
    assert.match(await sandbox.locator('dl').innerText(), /intermediate/);

    await status(page, 'pending').waitFor();
    assert.equal(await status(page, 'pending').innerText(), 'Waiting for the decision…');
    assert.equal(
      await page.getByRole('link', { name: 'Open the verification page' }).getAttribute('href'),
      sandbox.url(),
    );
    await screenshot(page, 'kyc-step-02-waiting');

    await sandbox.getByRole('button', { name: 'Approve' }).click();
    await sandbox.getByText('The verification is approved').waitFor();
    await status(page, 'approved').waitFor({ timeout: 10_000 });
    assert.equal(await status(page, 'approved').innerText(), 'Your identity is verified.');
    assert.match(await page.getByTestId('approved-callback').innerText(), /^kyv_/);
    assert.equal(await page.getByRole('button').count(), 0, 'nothing more to start');
    await screenshot(page, 'kyc-step-03-verified');

    // A reload reads the status from the service.
    await page.reload();
    await status(page, 'approved').waitFor();
    await context.close();
  });

  test('a verification found pending after a reload is followed; a rejection offers a new verification', async () => {
    const context = await browser.newContext({ viewport: { width: 560, height: 200 } });
    const page = await signedInPage(context, 'kyc-step-reload');
    const opened = page.waitForEvent('popup');
    await page.getByRole('button', { name: 'Verify my identity' }).click();
    const sandbox = await opened;
    await sandbox.getByRole('button', { name: 'Reject' }).waitFor();
    await status(page, 'pending').waitFor();

    await page.reload();
    await status(page, 'pending').waitFor();
    assert.equal(await page.getByRole('link', { name: 'Open the verification page' }).count(), 0);
    await sandbox.getByRole('button', { name: 'Reject' }).click();
    await sandbox.getByText('The verification is rejected').waitFor();
    await status(page, 'rejected').waitFor({ timeout: 10_000 });
    assert.equal(await status(page, 'rejected').innerText(), 'The verification was not approved.');
    await page.getByRole('button', { name: 'Start a new verification' }).waitFor();
    await screenshot(page, 'kyc-step-04-rejected');
    await context.close();
  });

  test('no page error', () => {
    assert.deepEqual(pageErrors, []);
  });
});
