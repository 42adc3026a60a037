// @onboard/react's RampWidget in headless Chromium against a fake SDK API: a page built here from
// tests/browser/rampWidget/page.tsx (the library from its sources) is served with the fake on the same origin (the
// client's FakeService, sdk/core/test/fakeService.ts, behind a node HTTP server), signs a user in with an email code
// and shows the widget. An on-ramp is quoted (what the user pays and gets, the fee, a countdown), started (under an
// Idempotency-Key) and shows the deposit instructions (copyable), then follows the ramp through processing to
// completed as the fake moves it on; an amount under the route's minimum shows "Minimum 20 USD"; an expired quote
// offers a new one; a ramp that needs the provider's KYC opens its page in a new tab from the click. axe finds no
// serious WCAG A/AA violation. Screenshots under test-output/browser/ramp-widget-*.png.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import react from '@vitejs/plugin-react';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { build, type Rolldown } from 'vite';
import { projectRoot } from '../../src/paths';
import { emailSignInService, ok, PUB, USDC, type FakeService } from '../../sdk/core/test/fakeService';
import { launchChromium, screenshot } from '../support/browser';
import { seriousAxeViolations } from '../support/dashboard';

const PAGE_DIR = join(projectRoot, 'tests', 'browser', 'rampWidget');
const QUOTE_ID = 'rmq_01JD3X5K7Q9T2M4N6P8R0S1V3W';
const TX_ID = 'rmt_01JD3X5K7Q9T2M4N6P8R0S1V3W';

let server: Server;
let origin: string;
let pageUrl: string;
let browser: Browser;
let fake: FakeService;
const pageErrors: string[] = [];

/** The page's files, built in memory: its script, its stylesheets. */
async function buildPage(): Promise<Map<string, { type: string; body: string | Uint8Array }>> {
  const nodeEnv = process.env.NODE_ENV; // Vite's build sets NODE_ENV for the whole process
  const output = await build({
    configFile: false,
    logLevel: 'warn',
    root: PAGE_DIR,
    plugins: [react()],
    resolve: {
      alias: {
        '@onboard/core': join(projectRoot, 'sdk/core/src/index.ts'),
        '@onboard/react/styles.css': join(projectRoot, 'sdk/react/styles.css'),
        '@onboard/react': join(projectRoot, 'sdk/react/src/index.ts'),
      },
    },
    build: { write: false, sourcemap: false, rolldownOptions: { input: join(PAGE_DIR, 'page.tsx') } },
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
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>RampWidget</title>
${styles.map((f) => `<link rel="stylesheet" href="${f}">`).join('')}</head>
<body><main id="root"></main><script type="module" src="${entry}"></script></body></html>`,
  });
  // The provider's KYC page a pending_kyc ramp points to.
  files.set('/provider-kyc', {
    type: 'text/html',
    body: '<!doctype html><html lang="en"><title>Provider KYC</title><h1>Provider identity check</h1></html>',
  });
  return files;
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}

before(async () => {
  const files = await buildPage();
  fake = emailSignInService();
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', origin);
    if (url.pathname.startsWith('/v1/')) {
      // The API: the fake answers as the service would, on the page's own origin (no CORS to set up).
      void (async () => {
        const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await bodyOf(req);
        const headers = Object.entries(req.headers).flatMap(([k, v]) =>
          v === undefined ? [] : [[k, Array.isArray(v) ? v.join(', ') : v] as [string, string]],
        );
        const answer = await fake.fetch(url, { method: req.method ?? 'GET', headers, ...(body ? { body } : {}) });
        const answerHeaders: Record<string, string> = {};
        answer.headers.forEach((value, key) => (answerHeaders[key] = value));
        res.writeHead(answer.status, answerHeaders).end(await answer.text());
      })();
      return;
    }
    const file = files.get(url.pathname);
    res.writeHead(file ? 200 : 404, { 'content-type': file?.type ?? 'text/plain' }).end(file?.body ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  pageUrl = `${origin}/?${new URLSearchParams({ api: origin, key: PUB }).toString()}`;
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

const bridge = {
  providerId: 'bridge',
  name: 'Bridge',
  directions: ['on', 'off'],
  fiatCurrencies: ['USD'],
  assets: [USDC],
};
const etherfuse = {
  providerId: 'etherfuse',
  name: 'Etherfuse',
  directions: ['on', 'off'],
  fiatCurrencies: ['MXN'],
  assets: [USDC],
};

const deposit = {
  method: 'ach',
  amount: '100',
  currency: 'USD',
  reference: 'BRG7Q2LMX9',
  details: {
    bankName: 'Lead Bank',
    accountNumber: '900123456789',
    routingNumber: '101019644',
    beneficiary: 'Bridge Ventures Inc',
  },
  expiresAt: '2026-11-24T10:16:00.000Z',
};

/** The fake's ramp: providers, a quote of `amount` USD (under 20 refused with the minimum), a start, reads. */
function rampApi(options: { quoteSeconds?: number; startStatus?: string; kycUrl?: string } = {}) {
  const ramp = { status: options.startStatus ?? 'awaiting_deposit', quotes: 0 };
  const transaction = () => ({
    txId: TX_ID,
    provider: 'bridge',
    status: ramp.status,
    quoteId: QUOTE_ID,
    direction: 'on',
    asset: USDC,
    cryptoAmount: '99.25',
    fiatAmount: '100',
    fiatCurrency: 'USD',
    ...(ramp.status === 'awaiting_deposit' ? { depositInstructions: deposit } : {}),
    ...(ramp.status === 'pending_kyc' ? { kycUrl: options.kycUrl } : {}),
    stellarTxHash:
      ramp.status === 'completed' ? '3389e9f0f1a65f19736cacf544c2e825313e8447f569233bb8db39aa607c8889' : null,
    createdAt: '2026-11-21T10:16:00.000Z',
    updatedAt: new Date().toISOString(),
  });
  fake
    .on('GET /v1/ramps/providers', () => ok('SDK_RAMPS_PROVIDERS_LISTED', { providers: [bridge, etherfuse] }))
    .on('POST /v1/ramps/quotes', ({ body }) => {
      const { amount, fiatCurrency } = body as { amount: string; fiatCurrency: string };
      if (Number(amount) < 20)
        return {
          status: 422,
          body: {
            success: false,
            code: 'SDK_RAMPS_AMOUNT_OUT_OF_RANGE',
            message: `The amount is below the minimum of 20 ${fiatCurrency}`,
            limit: 'min',
            limitAmount: '20',
            limitCurrency: fiatCurrency,
          },
        };
      ramp.quotes += 1;
      const expiresAt = new Date(Date.now() + (options.quoteSeconds ?? 900) * 1_000).toISOString();
      return {
        status: 201,
        body: {
          success: true,
          code: 'SDK_RAMPS_QUOTE_CREATED',
          content: {
            quoteId: `${QUOTE_ID}${ramp.quotes}`,
            providerId: 'bridge',
            direction: 'on',
            fiatAmount: amount,
            fiatCurrency,
            cryptoAmount: '99.25',
            asset: USDC,
            fee: '0.75',
            minAmount: '20',
            maxAmount: '10000',
            expiresAt,
          },
        },
      };
    })
    .on('POST /v1/ramps/transactions', () => ({
      status: 201,
      body: { success: true, code: 'SDK_RAMPS_STARTED', content: transaction() },
    }))
    .on(`GET /v1/ramps/transactions/${TX_ID}`, () => ok('SDK_RAMPS_TX_FETCHED', transaction()));
  return ramp;
}

async function signedInPage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (err) => pageErrors.push(err.message));
  await page.goto(pageUrl);
  await page.getByLabel('Email').fill('ada@example.com');
  await page.getByRole('button', { name: 'Send code' }).click();
  await page.getByLabel('Code').fill('123456');
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.getByRole('heading', { name: 'Buy or sell' }).waitFor();
  return page;
}

const rampStatus = (page: Page, value: string) => page.locator(`[data-testid="ramp-status"][data-status="${value}"]`);
const seen = (route: string) => fake.seen.filter((r) => `${r.method} ${r.path}` === route);

describe('RampWidget against a fake ramps API', () => {
  test('on-ramp: quote -> start -> deposit instructions -> processing -> completed after polling', async () => {
    const ramp = rampApi();
    const context = await browser.newContext({
      viewport: { width: 560, height: 200 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    const page = await signedInPage(context);
    await page.getByLabel('Provider').selectOption('bridge');
    await page.getByRole('radio', { name: 'Buy' }).check();
    assert.equal(await page.getByLabel('Currency').inputValue(), 'USD');
    await page.getByLabel('Amount (USD)').fill('100');
    await screenshot(page, 'ramp-widget-01-form');

    await page.getByRole('button', { name: 'Get a quote' }).click();
    const quote = page.getByTestId('ramp-quote');
    await quote.waitFor();
    const quoteText = await quote.innerText();
    for (const part of ['You pay', '100 USD', 'You receive', '99.25 USDC', 'Fee (included)', '0.75 USD', 'Valid for'])
      assert.ok(quoteText.includes(part), `${part} in ${quoteText}`);
    assert.match(await page.getByTestId('ramp-countdown').innerText(), /^1[45]:\d\d$/);
    assert.deepEqual(seen('POST /v1/ramps/quotes').at(-1)?.body, {
      providerId: 'bridge',
      direction: 'on',
      fiatCurrency: 'USD',
      asset: USDC,
      amount: '100',
      amountIn: 'fiat',
    });
    assert.ok(await page.getByLabel('Amount (USD)').isDisabled(), 'the quoted choices are fixed until Change');
    assert.deepEqual(await seriousAxeViolations(page, 'quote'), []);
    await screenshot(page, 'ramp-widget-02-quote');

    await page.getByRole('button', { name: 'Buy 99.25 USDC' }).click();
    await rampStatus(page, 'awaiting_deposit').waitFor();
    assert.equal(await page.getByTestId('ramp-summary').innerText(), 'Buying 99.25 USDC for 100 USD with Bridge.');
    const [start] = seen('POST /v1/ramps/transactions');
    assert.deepEqual(start?.body, { quoteId: `${QUOTE_ID}1` });
    assert.match(start?.headers.get('idempotency-key') ?? '', /^[0-9a-f-]{36}$/);
    const instructions = await page.getByTestId('ramp-deposit').innerText();
    for (const part of [
      'ACH bank transfer',
      '100 USD',
      'Reference',
      'BRG7Q2LMX9',
      'Bank name',
      'Lead Bank',
      'Account number',
      '900123456789',
      'Routing number',
      'Beneficiary',
      'Pay by',
    ])
      assert.ok(instructions.includes(part), `${part} in ${instructions}`);
    await page.getByRole('button', { name: 'Copy reference' }).click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'BRG7Q2LMX9');
    await page.getByTestId('ramp-deposit').getByRole('status').filter({ hasText: 'Copied' }).waitFor();
    assert.deepEqual(await seriousAxeViolations(page, 'deposit'), []);
    await screenshot(page, 'ramp-widget-03-deposit');

    ramp.status = 'processing';
    await rampStatus(page, 'processing').waitFor();
    assert.equal(await page.getByRole('progressbar', { name: 'Processing' }).count(), 1);
    await screenshot(page, 'ramp-widget-04-processing');

    ramp.status = 'completed';
    await rampStatus(page, 'completed').waitFor();
    assert.equal(await rampStatus(page, 'completed').innerText(), 'Done. 99.25 USDC arrived in your wallet.');
    assert.equal(await page.getByTestId('completed-callback').innerText(), TX_ID);
    const reads = seen(`GET /v1/ramps/transactions/${TX_ID}`).length;
    assert.ok(reads >= 2, `followed by polling (${reads} reads)`);
    await screenshot(page, 'ramp-widget-05-completed');
    // Final: no more reads.
    await page.waitForTimeout(1_000);
    assert.equal(seen(`GET /v1/ramps/transactions/${TX_ID}`).length, reads);

    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'Get a quote' }).waitFor();
    await context.close();
  });

  test('an amount under the minimum shows the bound; the form works from the keyboard', async () => {
    rampApi();
    const context = await browser.newContext({ viewport: { width: 560, height: 200 } });
    const page = await signedInPage(context);
    await page.getByLabel('Provider').selectOption('bridge');
    await page.getByLabel('Amount (USD)').fill('5');
    await page.getByLabel('Amount (USD)').press('Enter');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.equal(await alert.innerText(), 'The amount is below the minimum. Minimum 20 USD.');
    assert.equal(await page.getByLabel('Amount (USD)').getAttribute('aria-invalid'), 'true');
    assert.equal(
      await page.getByLabel('Amount (USD)').getAttribute('aria-describedby'),
      await alert.getAttribute('id'),
    );
    assert.equal(await page.getByTestId('ramp-quote').count(), 0);
    await screenshot(page, 'ramp-widget-06-below-minimum');

    // A malformed amount is said at once, and nothing is asked of the service.
    const quotes = seen('POST /v1/ramps/quotes').length;
    await page.getByLabel('Amount (USD)').fill('12,50');
    assert.equal(await page.getByLabel('Amount (USD)').getAttribute('aria-invalid'), 'true');
    assert.ok(await page.getByRole('button', { name: 'Get a quote' }).isDisabled());
    assert.equal(seen('POST /v1/ramps/quotes').length, quotes);

    // Another provider's currency: its own bound.
    await page.getByLabel('Provider').selectOption('etherfuse');
    await page.getByLabel('Amount (MXN)').fill('10');
    await page.getByRole('button', { name: 'Get a quote' }).click();
    await page.getByText('Minimum 20 MXN.').waitFor();
    await context.close();
  });

  test('an expired quote offers a new one', async () => {
    rampApi({ quoteSeconds: 2 });
    const context = await browser.newContext({ viewport: { width: 560, height: 200 } });
    const page = await signedInPage(context);
    await page.getByLabel('Provider').selectOption('bridge');
    await page.getByLabel('Amount (USD)').fill('100');
    await page.getByRole('button', { name: 'Get a quote' }).click();
    await page.getByTestId('ramp-quote').waitFor();
    await page.getByRole('button', { name: 'Get a new quote' }).waitFor({ timeout: 5_000 });
    assert.equal(await page.getByTestId('ramp-countdown').innerText(), 'expired');
    assert.equal(await page.getByRole('button', { name: /^Buy / }).count(), 0, 'an expired quote cannot be started');
    await screenshot(page, 'ramp-widget-07-quote-expired');
    rampApi();
    await page.getByRole('button', { name: 'Get a new quote' }).click();
    await page.getByRole('button', { name: 'Buy 99.25 USDC' }).waitFor();
    assert.match(await page.getByTestId('ramp-countdown').innerText(), /^1[45]:\d\d$/);
    await context.close();
  });

  test('a ramp pending the provider’s KYC opens its page in a new tab from the click', async () => {
    rampApi({ startStatus: 'pending_kyc', kycUrl: `${origin}/provider-kyc` });
    const context = await browser.newContext({ viewport: { width: 560, height: 200 } });
    const page = await signedInPage(context);
    await page.getByLabel('Provider').selectOption('bridge');
    await page.getByLabel('Amount (USD)').fill('100');
    await page.getByRole('button', { name: 'Get a quote' }).click();
    await page.getByRole('button', { name: 'Buy 99.25 USDC' }).click();
    await rampStatus(page, 'pending_kyc').waitFor();
    await screenshot(page, 'ramp-widget-08-pending-kyc');
    const opened = page.waitForEvent('popup');
    await page.getByRole('button', { name: 'Verify my identity' }).click();
    const kyc = await opened;
    await kyc.getByRole('heading', { name: 'Provider identity check' }).waitFor();
    assert.equal(kyc.url(), `${origin}/provider-kyc`);
    assert.equal(await kyc.evaluate(() => window.opener), null, 'the provider’s page cannot reach the app’s');
    await context.close();
  });

  test('no page error', () => {
    assert.deepEqual(pageErrors, []);
  });
});
