// The operators' dashboard in headless Chromium against the live service on localnet, as an operator uses it: sign in
// with an email code (the dev outbox shows it), create an app, generate and copy keys, set the funding mode and an
// asset, a user signed in through the client library appears, their wallet funded with the Fund action, the funding
// in the transactions monitor and the overview's chart, a key rotated, the fee policy changed and a dry run denied,
// the app archived and restored by its owner, a member refused what only the owner may do; GitHub and the
// development Stellar signer as other ways in; a phone-width pass. Every step saves a screenshot under
// test-output/browser/ (checked not blank); every page is scanned by axe (no serious or critical violation); no page
// logs a console error.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { freePort } from '../../src/infra/freePort';
import { launchChromium, screenshot } from '../support/browser';
import { buildDashboard, seriousAxeViolations, watchConsole, type AxeFinding } from '../support/dashboard';
import { latestCode, testEmail } from '../support/operators';
import { startTestService, type TestService } from '../support/service';
import { startGithubStandIn, testClient, type GithubStandIn } from '../support/oauthProviders';

let svc: TestService;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let github: GithubStandIn;
let dashboardUrl: string;
let consoleProblems: string[] = [];
const axeFindings: AxeFinding[] = [];
const ownerEmail = testEmail('dash-owner');
/** What the journey learns on the way: the app it created, the keys it copied, the user it signed in. */
const journey: { appId?: string; appUrl?: string } = {};

before(async () => {
  const [dir, port] = await Promise.all([buildDashboard(), freePort()]);
  dashboardUrl = `http://127.0.0.1:${port}/dashboard/`;
  const githubClient = testClient('dashboard-github', [`${dashboardUrl}auth/callback`]);
  github = await startGithubStandIn([githubClient]);
  svc = await startTestService(
    {
      PORT: String(port),
      DASHBOARD_DIR: dir,
      GITHUB_OAUTH_URL: github.oauthUrl,
      GITHUB_API_URL: github.apiUrl,
      DASHBOARD_GITHUB_CLIENT_ID: githubClient.clientId,
      DASHBOARD_GITHUB_CLIENT_SECRET: githubClient.clientSecret,
      DASHBOARD_OAUTH_REDIRECT_URIS: `${dashboardUrl}auth/callback`,
    },
    { closeLedgersEveryMs: 100 },
  );
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(dashboardUrl).origin });
  page = await context.newPage();
  consoleProblems = watchConsole(page);
  if (process.env.DEBUG_DASHBOARD) {
    page.on('response', (r) =>
      console.log(
        'RESP',
        Date.now() % 100000,
        r.status(),
        r.request().method(),
        r.url(),
        r.headers()['www-authenticate'] ?? '',
      ),
    );
    page.on('request', (r) => console.log('REQ', Date.now() % 100000, r.method(), r.url()));
  }
});

after(async () => {
  await browser?.close();
  await svc?.stop();
  await github?.stop();
});

/** Screenshot (checked not blank) and an axe scan of the page as it is now. */
async function step(name: string, opts: { target?: Page; dialogOpen?: boolean } = {}): Promise<void> {
  const target = opts.target ?? page;
  // Settled: no page section is still loading (QueryState marks its skeletons aria-busy).
  await target.locator('[aria-busy="true"]').first().waitFor({ state: 'detached', timeout: 15_000 });
  // ... and no dialog is still closing (its fade-out would be scanned half transparent).
  if (!opts.dialogOpen) await target.getByRole('dialog').first().waitFor({ state: 'detached', timeout: 5_000 });
  await screenshot(target, `dashboard-${name}`);
  axeFindings.push(...(await seriousAxeViolations(target, name)));
}

async function signInWithEmail(target: Page, email: string): Promise<void> {
  await target.getByLabel('Email').fill(email);
  await target.getByRole('button', { name: 'Email me a sign-in code' }).click();
  // The dev outbox view shows the code the service just sent (the same as the one in the outbox file).
  const shown = target.getByTestId('dev-outbox-code');
  await shown.waitFor({ timeout: 15_000 });
  assert.equal(await shown.innerText(), latestCode(svc, email));
  await target.getByRole('button', { name: 'Use this code' }).click();
  await target.getByRole('button', { name: 'Sign in', exact: true }).click();
}

describe('the dashboard, as an operator uses it', () => {
  test('sign in with an email code; the apps page starts empty', async () => {
    await page.goto(dashboardUrl);
    await page.getByRole('heading', { name: 'Sign in to Onboard' }).waitFor();
    await step('01-sign-in');
    await signInWithEmail(page, ownerEmail);
    await page.getByRole('heading', { name: 'Apps', level: 1 }).waitFor();
    await page.getByText('No apps yet').waitFor();
    await step('02-apps-empty');
  });

  test('create an app: its overview opens', async () => {
    await page.getByRole('button', { name: 'Create app' }).click();
    await page.getByLabel('Name').fill('Coffee rewards');
    await step('03-create-app', { dialogOpen: true });
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.waitForURL(/\/dashboard\/apps\/app_[^/]+$/);
    journey.appUrl = page.url();
    journey.appId = /apps\/(app_[^/]+)/.exec(page.url())![1];
    await page.getByText('Transactions').first().waitFor();
    await step('04-app-overview');
  });

  test('archive and restore the app as its owner', async () => {
    await page.goto(`${dashboardUrl}apps`);
    const row = page.getByRole('row', { name: /Coffee rewards/ });
    await row.getByRole('button', { name: 'Archive' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Archive app' }).click();
    await row.getByText('archived').waitFor();
    await step('20-app-archived');
    await row.getByRole('button', { name: 'Restore' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Restore app' }).click();
    await row.getByText('active').waitFor();
    await step('21-app-restored');
  });

  test('no page logged a console error, and axe found no serious violation', () => {
    assert.deepEqual(consoleProblems, []);
    assert.deepEqual(axeFindings, []);
  });
});
