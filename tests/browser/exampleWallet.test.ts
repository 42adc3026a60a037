// The example app in headless Chromium against the live service on localnet: sign in with an email code, the funded
// wallet and its balance shown, a payment sent and shown in the history, a reload keeps the session, the DPoP private
// key in IndexedDB is not extractable, a second tab follows the sign-out. Each step's screenshot is written under
// test-output/browser/ and checked not to be blank.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair } from '@stellar/stellar-sdk';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { replaceAppDomains } from '../../src/domain/apps/domains';
import { updateAuthProviders } from '../../src/domain/oauth/appProviders';
import { launchChromium, screenshot } from '../support/browser';
import { serveExample, type ServedExample } from '../support/exampleApp';
import { startPrism } from '../support/prism';
import { appWithWallet, createAccountWith } from '../support/funding';
import { latestCode, testEmail } from '../support/operators';
import { startTestService, type TestService } from '../support/service';
import { startGithubStandIn, testClient, type GithubStandIn } from '../support/oauthProviders';

let svc: TestService;
let example: ServedExample;
let browser: Browser;
let context: BrowserContext;
let appWallet: string;
let github: GithubStandIn;
// The example's own address is its redirect URI: known once it is served, so the stand-in's client list is filled then.
const githubClient = testClient('example-github', []);

before(async () => {
  github = await startGithubStandIn([githubClient]);
  svc = await startTestService(
    { GITHUB_OAUTH_URL: github.oauthUrl, GITHUB_API_URL: github.apiUrl },
    { closeLedgersEveryMs: 100 },
  );
  const seeded = await appWithWallet(svc, { settings: { fundingMode: 'immediate', startingBalanceXlm: '10' } });
  appWallet = seeded.appWallet.publicKey;
  example = await serveExample({
    baseUrl: svc.url,
    publishableKey: seeded.creds.publishableKey,
    devWallet: true,
    providers: ['github'],
  });
  githubClient.redirectUris.push(example.url);
  await updateAuthProviders(
    svc.deps.db,
    svc.deps.secrets,
    seeded.app.id,
    {
      email: { enabled: true },
      google: { enabled: false },
      github: { enabled: true, clientId: githubClient.clientId, clientSecret: githubClient.clientSecret },
      stellar: { enabled: true },
    },
    new Date(),
  );
  await svc.deps.db.transaction((trx) =>
    replaceAppDomains(trx, seeded.app.id, { origins: [example.origin], redirectUris: [example.url] }),
  );
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
});
after(async () => {
  await context?.close();
  await browser?.close();
  await example?.stop();
  await svc?.stop();
  await github?.stop();
});

async function signIn(page: Page, email: string): Promise<void> {
  await page.goto(example.url);
  await page.getByLabel('Email').fill(email);
  await screenshot(page, '01-email');
  await page.getByRole('button', { name: 'Send code' }).click();
  await page.getByLabel('Code').waitFor();
  await page.getByLabel('Code').fill('000000');
  await page.getByRole('button', { name: 'Verify' }).click();
  // A wrong code is shown next to the field; the right one signs in.
  await page.getByRole('alert').waitFor();
  assert.match(await page.getByRole('alert').innerText(), /not right/);
  await screenshot(page, '02-wrong-code');
  await page.getByLabel('Code').fill(latestCode(svc, email));
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.getByTestId('user-email').waitFor();
}

test('the example wallet: sign in, funded wallet, a payment in the history, reload, non-extractable key, two tabs', async () => {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  const email = testEmail('browser');
  await signIn(page, email);
  assert.equal(await page.getByTestId('user-email').innerText(), email);

  // The funded wallet and its starting balance.
  await page
    .getByTestId('wallet-funded')
    .filter({ hasText: /^funded$/ })
    .waitFor({ timeout: 20_000 });
  await page.getByRole('button', { name: 'Refresh' }).first().click();
  await page.getByTestId('balance-XLM').waitFor();
  assert.match(await page.getByTestId('balance-XLM').innerText(), /10(\.0+)?/);
  await screenshot(page, '03-funded-wallet');

  // A payment of 1 XLM to the app's wallet, followed to success and shown in the history.
  await page.getByLabel('To (Stellar address)').fill(appWallet);
  await page.getByLabel('Amount').fill('1');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await page.getByTestId('send-status').getByText('Sent.').waitFor({ timeout: 30_000 });
  await page.getByTestId('history').locator('li[data-status="SUCCESS"]').filter({ hasText: /1 XLM/ }).first().waitFor();
  await screenshot(page, '04-payment-in-history');

  // A reload keeps the session (tokens in localStorage, the key in IndexedDB).
  await page.reload();
  await page.getByTestId('user-email').waitFor();
  await screenshot(page, '05-after-reload');

  // The DPoP private key is a non-extractable CryptoKey: script can sign with it but never read it out.
  const key = await page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open('onboard');
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(new Error(String(open.error)));
    });
    const records = await new Promise<unknown[]>((resolve, reject) => {
      const all = db.transaction('dpop-keys').objectStore('dpop-keys').getAll();
      all.onsuccess = () => resolve(all.result);
      all.onerror = () => reject(new Error(String(all.error)));
    });
    const pair = records[0] as CryptoKeyPair;
    let exported = 'refused';
    try {
      await crypto.subtle.exportKey('jwk', pair.privateKey);
      exported = 'exported';
    } catch {
      // expected: InvalidAccessError
    }
    return {
      count: records.length,
      type: pair.privateKey.type,
      extractable: pair.privateKey.extractable,
      algorithm: (pair.privateKey.algorithm as EcKeyAlgorithm).namedCurve,
      exported,
    };
  });
  assert.deepEqual(key, { count: 1, type: 'private', extractable: false, algorithm: 'P-256', exported: 'refused' });

  // A second tab shares the session, and follows a sign-out made in the first.
  const second = await context.newPage();
  await second.goto(example.url);
  await second.getByTestId('user-email').waitFor();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('Email').waitFor();
  await second.getByLabel('Email').waitFor({ timeout: 10_000 });
  assert.match(await second.locator('.onb-signin').innerText(), /signed out/i);
  await screenshot(second, '06-second-tab-signed-out');
  assert.deepEqual(errors, []);
});

test("the user's own Stellar wallet (the example's dev wallet): SEP-10 sign-in, a payment signed in the page", async () => {
  // The dev wallet's key, made here so its account can exist on localnet before the page signs in with it.
  const dev = Keypair.random();
  await createAccountWith(svc, dev.publicKey(), '20');
  const own = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  try {
    await own.addInitScript((secret) => {
      localStorage.setItem('onboard-example:dev-wallet-secret', secret);
    }, dev.secret());
    const page = await own.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(example.url);
    await page.getByRole('button', { name: /Continue with Development wallet/ }).click();
    await page.getByTestId('wallet-address').waitFor();
    assert.equal(await page.getByTestId('wallet-address').innerText(), dev.publicKey());
    assert.equal(await page.getByTestId('wallet-custody').innerText(), 'your own wallet signs');
    await page.getByTestId('balance-XLM').waitFor();
    await screenshot(page, '07-own-wallet-signed-in');
    await page.getByLabel('To (Stellar address)').fill(appWallet);
    await page.getByLabel('Amount').fill('2.5');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByTestId('send-status').getByText('Sent.').waitFor({ timeout: 30_000 });
    await page.getByTestId('balance-XLM').filter({ hasText: /17\.5/ }).waitFor({ timeout: 10_000 });
    await screenshot(page, '08-own-wallet-paid');
    assert.deepEqual(errors, []);
  } finally {
    await own.close();
  }
});

test('with one setting the example runs against the Prism mock of the contract: sign-in and the wallet from its examples', async () => {
  const prism = await startPrism('mock');
  const mocked = await serveExample({
    mockUrl: prism.url,
    publishableKey: `pub_testnet_${'MockOnlyNotARealKey'.padEnd(32, '0')}`,
  });
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  try {
    const page = await context.newPage();
    await page.goto(mocked.url);
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByRole('button', { name: 'Send code' }).click();
    await page.getByLabel('Code').fill('482913');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByTestId('user-email').waitFor();
    assert.equal(await page.getByTestId('user-email').innerText(), 'ada@example.com');
    await page.getByTestId('wallet-address').waitFor();
    await screenshot(page, '09-prism-mock');
  } finally {
    await context.close();
    await mocked.stop();
    await prism.stop();
  }
});

test('GitHub in a popup: the provider comes back to the example in the popup, and the page that opened it signs in', async () => {
  const email = testEmail('browser-github');
  github.accounts.set('octo-browser', {
    id: 9001,
    login: 'octo-browser',
    name: null,
    emails: [{ email, primary: true, verified: true }],
  });
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  try {
    // The stand-in knows who is "signed in to GitHub" from a header a real browser session would not need.
    await context.route(`${github.oauthUrl}/**`, (route) =>
      route.continue({ headers: { ...route.request().headers(), 'x-test-login': 'octo-browser' } }),
    );
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(example.url);
    const [popup] = await Promise.all([
      context.waitForEvent('page'),
      page.getByRole('button', { name: 'Continue with GitHub' }).click(),
    ]);
    await page.getByTestId('user-email').waitFor({ timeout: 20_000 });
    assert.equal(await page.getByTestId('user-email').innerText(), email);
    if (!popup.isClosed()) await popup.waitForEvent('close', { timeout: 10_000 });
    assert.equal(popup.isClosed(), true, 'the popup was closed by the page that opened it');
    // The flow was finished once, by the opener: one session for the user, no state refused as used.
    const sessions = await svc.deps
      .db('sessions as s')
      .join('users as u', 'u.id', 's.subject_id')
      .where({ 'u.email': email })
      .count('* as n')
      .first();
    assert.equal(Number(sessions?.n), 1);
    assert.deepEqual(github.refusals, []);
    await screenshot(page, '10-github-popup-signed-in');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
