// ramps.listProviders, ramps.quote, ramps.start, ramps.get and ramps.waitForFinal against a fake SDK API
// (fakeService.ts), through a signed-in client's own transport: each answer as an outcome (the refusals a user acts
// on with their own shapes: out_of_range with the bound, kyc_required with a web kycUrl, quote_expired,
// insufficient_balance, onchain_failed with Stellar's result code, upstream_error marked retryable; the rest as the
// generic error), the start's Idempotency-Key (generated, kept across the transport's retry, handed back and reused),
// and the wait: polling until completed, failed or expired, through blips, stopping on abort and at its deadline.
// Malformed answers (a float amount, a javascript: kycUrl) are INVALID_RESPONSE, never a throw.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ramps } from '../src/index';
import {
  assertOneSessionRequest,
  emailSignInService,
  fail,
  ok,
  signedInClient,
  USDC,
  type FakeAnswer,
} from './fakeService';

const QUOTE_ID = 'rmq_01JD3X5K7Q9T2M4N6P8R0S1V3W';
const TX_ID = 'rmt_01JD3X5K7Q9T2M4N6P8R0S1V3W';
const PROVIDERS_PATH = '/v1/ramps/providers';
const QUOTES_PATH = '/v1/ramps/quotes';
const TRANSACTIONS_PATH = '/v1/ramps/transactions';
const TX_PATH = `${TRANSACTIONS_PATH}/${TX_ID}`;
const KYC_URL = 'https://bridge.withpersona.com/verify?inquiry-template-id=itmpl_7Hq2LmX9';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const bridge = {
  providerId: 'bridge',
  name: 'Bridge',
  directions: ['on', 'off'],
  fiatCurrencies: ['USD'],
  assets: [USDC],
};

const quoteContent = (overrides: Record<string, unknown> = {}) => ({
  quoteId: QUOTE_ID,
  providerId: 'bridge',
  direction: 'on',
  fiatAmount: '100',
  fiatCurrency: 'USD',
  cryptoAmount: '99.25',
  asset: USDC,
  fee: '0.75',
  minAmount: '20',
  maxAmount: '10000',
  expiresAt: '2026-11-21T10:30:30.000Z',
  ...overrides,
});
const quoted = (overrides: Record<string, unknown> = {}): FakeAnswer => ({
  status: 201,
  body: { success: true, code: 'SDK_RAMPS_QUOTE_CREATED', content: quoteContent(overrides) },
});

const deposit = {
  method: 'ach',
  amount: '100',
  currency: 'USD',
  reference: 'BRG7Q2LMX9',
  details: { bankName: 'Lead Bank', accountNumber: '900123456789', routingNumber: '101019644' },
  expiresAt: '2026-11-24T10:16:00.000Z',
};
const transaction = (status: string, overrides: Record<string, unknown> = {}) => ({
  txId: TX_ID,
  provider: 'bridge',
  status,
  quoteId: QUOTE_ID,
  direction: 'on',
  asset: USDC,
  cryptoAmount: '99.25',
  fiatAmount: '100',
  fiatCurrency: 'USD',
  stellarTxHash: null,
  createdAt: '2026-11-21T10:16:00.000Z',
  updatedAt: '2026-11-21T10:16:00.000Z',
  ...overrides,
});
const started = (overrides: Record<string, unknown> = {}): FakeAnswer => ({
  status: 201,
  body: {
    success: true,
    code: 'SDK_RAMPS_STARTED',
    content: transaction('awaiting_deposit', { depositInstructions: deposit, ...overrides }),
  },
});
const fetched = (status: string, overrides: Record<string, unknown> = {}): FakeAnswer =>
  ok('SDK_RAMPS_TX_FETCHED', transaction(status, overrides));

/** An error answer with fields at the top level of the envelope (limit..., kycUrl) or in `details`. */
const refused = (status: number, code: string, extra: Record<string, unknown> = {}): FakeAnswer => ({
  status,
  body: { success: false, code, message: `${code} message`, ...extra },
});
const outOfRange = refused(422, 'SDK_RAMPS_AMOUNT_OUT_OF_RANGE', {
  limit: 'min',
  limitAmount: '20',
  limitCurrency: 'USD',
});

/** A signed-in client whose `route` answers `answers` in turn (the last one again once they run out). */
async function answering(route: string, answers: FakeAnswer[]) {
  let n = 0;
  const fake = emailSignInService().on(route, () => answers[Math.min(n++, answers.length - 1)]!);
  const signedIn = await signedInClient(fake);
  const [, path] = route.split(' ');
  return { ...signedIn, calls: () => signedIn.requests().filter((r) => r.path === path) };
}

const quoteInput = { providerId: 'bridge', direction: 'on', fiatCurrency: 'USD', asset: USDC, amount: '100' } as const;

describe('ramps.listProviders', () => {
  test('the providers, in one GET carrying the session', async () => {
    const etherfuse = { ...bridge, providerId: 'etherfuse', name: 'Etherfuse', fiatCurrencies: ['MXN'] };
    const { api, requests } = await answering(`GET ${PROVIDERS_PATH}`, [
      ok('SDK_RAMPS_PROVIDERS_LISTED', { providers: [bridge, etherfuse] }),
    ]);
    assert.deepEqual(await ramps.listProviders(api), { status: 'listed', providers: [bridge, etherfuse] });
    assertOneSessionRequest(requests(), `GET ${PROVIDERS_PATH}`);
  });

  test('an API error is an error outcome; malformed answers are INVALID_RESPONSE', async () => {
    const { api } = await answering(`GET ${PROVIDERS_PATH}`, [
      fail(404, 'APPLICATION_NOT_FOUND', 'The app is archived'),
      ok('SDK_RAMPS_PROVIDERS_LISTED', { providers: [{ ...bridge, directions: ['sideways'] }] }),
      ok('SDK_RAMPS_PROVIDERS_LISTED', { providers: [{ ...bridge, directions: [] }] }),
      ok('SDK_RAMPS_PROVIDERS_LISTED', {}),
    ]);
    assert.deepEqual(await ramps.listProviders(api), {
      status: 'error',
      code: 'APPLICATION_NOT_FOUND',
      httpStatus: 404,
      message: 'The app is archived',
    });
    for (const what of ['an unknown direction', 'no direction', 'no providers']) {
      const out = await ramps.listProviders(api);
      assert.equal(out.status === 'error' && out.code, 'INVALID_RESPONSE', what);
    }
  });
});

describe('ramps.quote', () => {
  test('quoted: the quote as the contract has it, amounts as strings; the body defaults amountIn to fiat', async () => {
    const { api, calls } = await answering(`POST ${QUOTES_PATH}`, [quoted()]);
    assert.deepEqual(await ramps.quote(api, quoteInput), { status: 'quoted', quote: quoteContent() });
    assert.deepEqual(calls()[0]?.body, { ...quoteInput, amountIn: 'fiat' });
    const crypto = await answering(`POST ${QUOTES_PATH}`, [quoted()]);
    await ramps.quote(crypto.api, { ...quoteInput, amount: '99.25', amountIn: 'crypto' });
    assert.deepEqual(crypto.calls()[0]?.body, { ...quoteInput, amount: '99.25', amountIn: 'crypto' });
  });

  test('out_of_range carries the bound crossed; kyc_required the page; upstream failures are retryable', async () => {
    const { api } = await answering(`POST ${QUOTES_PATH}`, [
      outOfRange,
      refused(422, 'SDK_RAMPS_AMOUNT_OUT_OF_RANGE', { limit: 'max', limitAmount: '10000', limitCurrency: 'USD' }),
      refused(403, 'SDK_RAMPS_KYC_REQUIRED', { kycUrl: KYC_URL }),
      refused(502, 'SDK_RAMPS_ANCHOR_ERROR'),
      refused(502, 'SDK_RAMPS_BRIDGE_ERROR'),
      refused(502, 'SDK_RAMPS_ETHERFUSE_ERROR'),
    ]);
    assert.deepEqual(await ramps.quote(api, { ...quoteInput, amount: '5' }), {
      status: 'out_of_range',
      code: 'SDK_RAMPS_AMOUNT_OUT_OF_RANGE',
      httpStatus: 422,
      message: 'SDK_RAMPS_AMOUNT_OUT_OF_RANGE message',
      limit: 'min',
      limitAmount: '20',
      limitCurrency: 'USD',
    });
    const above = await ramps.quote(api, { ...quoteInput, amount: '20000' });
    assert.deepEqual(above.status === 'out_of_range' && [above.limit, above.limitAmount, above.limitCurrency], [
      'max',
      '10000',
      'USD',
    ]);
    assert.deepEqual(await ramps.quote(api, quoteInput), {
      status: 'kyc_required',
      code: 'SDK_RAMPS_KYC_REQUIRED',
      httpStatus: 403,
      message: 'SDK_RAMPS_KYC_REQUIRED message',
      kycUrl: KYC_URL,
    });
    for (const code of ['SDK_RAMPS_ANCHOR_ERROR', 'SDK_RAMPS_BRIDGE_ERROR', 'SDK_RAMPS_ETHERFUSE_ERROR']) {
      assert.deepEqual(await ramps.quote(api, quoteInput), {
        status: 'upstream_error',
        code,
        httpStatus: 502,
        message: `${code} message`,
        retryable: true,
      });
    }
  });

  test('other refusals are the generic error; malformed answers are INVALID_RESPONSE', async () => {
    const { api } = await answering(`POST ${QUOTES_PATH}`, [
      fail(404, 'SDK_RAMPS_PROVIDER_NOT_FOUND', 'Ramp provider acme-ramp not found'),
      fail(422, 'SDK_RAMPS_ASSET_NOT_ENABLED'),
      fail(422, 'SDK_RAMPS_PROVIDER_NOT_CONFIGURED'),
      // A refusal the contract does not give a quote falls back to the generic error, not to its own shape.
      fail(410, 'SDK_RAMPS_QUOTE_EXPIRED'),
      refused(403, 'SDK_RAMPS_KYC_REQUIRED', { kycUrl: 'javascript:alert(1)' }),
      refused(403, 'SDK_RAMPS_KYC_REQUIRED'),
      refused(422, 'SDK_RAMPS_AMOUNT_OUT_OF_RANGE', { limit: 'min' }),
      quoted({ fiatAmount: 100 }),
      quoted({ fee: '0.1234567891' }),
      quoted({ direction: 'up' }),
    ]);
    assert.deepEqual(await ramps.quote(api, quoteInput), {
      status: 'error',
      code: 'SDK_RAMPS_PROVIDER_NOT_FOUND',
      httpStatus: 404,
      message: 'Ramp provider acme-ramp not found',
    });
    for (const code of [
      'SDK_RAMPS_ASSET_NOT_ENABLED',
      'SDK_RAMPS_PROVIDER_NOT_CONFIGURED',
      'SDK_RAMPS_QUOTE_EXPIRED',
    ]) {
      const out = await ramps.quote(api, quoteInput);
      assert.deepEqual([out.status, out.status === 'error' && out.code], ['error', code]);
    }
    for (const what of [
      'a javascript: kycUrl',
      'a KYC refusal without kycUrl',
      'a range refusal without its bound',
      'a float amount',
      'eight decimals',
      'an unknown direction',
    ]) {
      const out = await ramps.quote(api, quoteInput);
      assert.equal(out.status === 'error' && out.code, 'INVALID_RESPONSE', `${what}: ${JSON.stringify(out)}`);
    }
  });
});

describe('ramps.start', () => {
  test('started: the transaction with its deposit instructions, under a generated Idempotency-Key', async () => {
    const { api, calls } = await answering(`POST ${TRANSACTIONS_PATH}`, [started()]);
    const out = await ramps.start(api, { quoteId: QUOTE_ID });
    assert.equal(out.status, 'started', JSON.stringify(out));
    if (out.status !== 'started') return;
    assert.deepEqual(out.transaction, transaction('awaiting_deposit', { depositInstructions: deposit }));
    assert.match(out.idempotencyKey, UUID);
    const [request] = calls();
    assert.deepEqual(request?.body, { quoteId: QUOTE_ID });
    assert.equal(request?.headers.get('idempotency-key'), out.idempotencyKey);
  });

  test('one start is one ramp: the transport’s retry and the caller’s retry send the same key', async () => {
    // 503 then 201: the transport retries (the request carries a key), with the same key.
    const retried = await answering(`POST ${TRANSACTIONS_PATH}`, [fail(503, 'SERVICE_UNAVAILABLE'), started()]);
    const first = await ramps.start(retried.api, { quoteId: QUOTE_ID });
    assert.equal(first.status, 'started');
    const keys = retried.calls().map((r) => r.headers.get('idempotency-key'));
    assert.equal(keys.length, 2);
    assert.equal(keys[0], keys[1]);
    assert.equal(first.status === 'started' && first.idempotencyKey, keys[0]);

    // No answer to any of the transport's three tries: the error outcome hands the key back, and a start with it
    // sends it again.
    const lost = await answering(`POST ${TRANSACTIONS_PATH}`, [
      'network-error',
      'network-error',
      'network-error',
      started(),
    ]);
    const failed = await ramps.start(lost.api, { quoteId: QUOTE_ID });
    assert.deepEqual([failed.status, failed.status === 'error' && failed.code], ['error', 'NETWORK_ERROR']);
    const key = failed.status === 'error' ? failed.idempotencyKey : undefined;
    assert.match(key ?? '', UUID);
    const again = await ramps.start(lost.api, { quoteId: QUOTE_ID, idempotencyKey: key! });
    assert.equal(again.status, 'started');
    assert.deepEqual(new Set(lost.calls().map((r) => r.headers.get('idempotency-key'))), new Set([key]));

    // Two starts without a key are two keys (the service still answers the same ramp for the same quote).
    const twice = await answering(`POST ${TRANSACTIONS_PATH}`, [started()]);
    await ramps.start(twice.api, { quoteId: QUOTE_ID });
    await ramps.start(twice.api, { quoteId: QUOTE_ID });
    const [a, b] = twice.calls().map((r) => r.headers.get('idempotency-key'));
    assert.notEqual(a, b);
  });

  test('each refusal with its own shape and the key it was sent with', async () => {
    const { api } = await answering(`POST ${TRANSACTIONS_PATH}`, [
      fail(410, 'SDK_RAMPS_QUOTE_EXPIRED', 'The quote expired; request a new one'),
      fail(422, 'SDK_RAMPS_INSUFFICIENT_BALANCE', 'Not enough USDC'),
      refused(422, 'SDK_RAMPS_ONCHAIN_SUBMIT_FAILED', { details: { resultCode: 'txInsufficientBalance' } }),
      refused(403, 'SDK_RAMPS_KYC_REQUIRED', { kycUrl: KYC_URL }),
      // A keyed start is tried three times by the transport on a 502 before the outcome says upstream_error.
      refused(502, 'SDK_RAMPS_ETHERFUSE_ERROR'),
      refused(502, 'SDK_RAMPS_ETHERFUSE_ERROR'),
      refused(502, 'SDK_RAMPS_ETHERFUSE_ERROR'),
      fail(404, 'SDK_RAMPS_QUOTE_NOT_FOUND', 'Quote not found'),
      fail(422, 'SDK_RAMPS_WALLET_UNSUPPORTED'),
      fail(422, 'SDK_RAMPS_BRIDGE_TESTNET_NOT_SETTLEABLE'),
    ]);
    const input = { quoteId: QUOTE_ID, idempotencyKey: 'key-1' };
    assert.deepEqual(await ramps.start(api, input), {
      status: 'quote_expired',
      code: 'SDK_RAMPS_QUOTE_EXPIRED',
      httpStatus: 410,
      message: 'The quote expired; request a new one',
      idempotencyKey: 'key-1',
    });
    assert.deepEqual(await ramps.start(api, input), {
      status: 'insufficient_balance',
      code: 'SDK_RAMPS_INSUFFICIENT_BALANCE',
      httpStatus: 422,
      message: 'Not enough USDC',
      idempotencyKey: 'key-1',
    });
    assert.deepEqual(await ramps.start(api, input), {
      status: 'onchain_failed',
      code: 'SDK_RAMPS_ONCHAIN_SUBMIT_FAILED',
      httpStatus: 422,
      message: 'SDK_RAMPS_ONCHAIN_SUBMIT_FAILED message',
      resultCode: 'txInsufficientBalance',
      idempotencyKey: 'key-1',
    });
    const kyc = await ramps.start(api, input);
    assert.deepEqual([kyc.status, kyc.status === 'kyc_required' && kyc.kycUrl], ['kyc_required', KYC_URL]);
    const upstream = await ramps.start(api, input);
    assert.deepEqual(
      [upstream.status, upstream.status === 'upstream_error' && upstream.retryable],
      ['upstream_error', true],
    );
    for (const code of [
      'SDK_RAMPS_QUOTE_NOT_FOUND',
      'SDK_RAMPS_WALLET_UNSUPPORTED',
      'SDK_RAMPS_BRIDGE_TESTNET_NOT_SETTLEABLE',
    ]) {
      const out = await ramps.start(api, input);
      assert.deepEqual(
        [out.status, out.status === 'error' && out.code, out.status === 'error' && out.idempotencyKey],
        ['error', code, 'key-1'],
      );
    }
  });

  test('each status’s fields are checked: a pending_kyc ramp whose kycUrl is not a web page is refused', async () => {
    const signature = { unsignedXdr: 'AAAAAgAAAAB=', action: 'Send 50 USDC to Etherfuse' };
    const { api } = await answering(`POST ${TRANSACTIONS_PATH}`, [
      started({ status: 'pending_kyc', depositInstructions: undefined, kycUrl: KYC_URL }),
      started({
        status: 'awaiting_signature',
        direction: 'off',
        depositInstructions: undefined,
        pendingSignature: signature,
      }),
      started({ status: 'pending_kyc', depositInstructions: undefined, kycUrl: 'javascript:alert(1)' }),
      started({ depositInstructions: { ...deposit, details: { bankName: 7 } } }),
      started({ status: 'settled' }),
      started({ cryptoAmount: 99.25 }),
    ]);
    const input = { quoteId: QUOTE_ID };
    const kyc = await ramps.start(api, input);
    assert.deepEqual(kyc.status === 'started' && [kyc.transaction.status, kyc.transaction.kycUrl], [
      'pending_kyc',
      KYC_URL,
    ]);
    const sign = await ramps.start(api, input);
    assert.deepEqual(sign.status === 'started' && sign.transaction.pendingSignature, signature);
    for (const what of [
      'a javascript: kycUrl',
      'a detail that is not a string',
      'an unknown status',
      'a float amount',
    ]) {
      const out = await ramps.start(api, input);
      assert.deepEqual(
        [out.status, out.status === 'error' && out.code, out.status === 'error' && typeof out.idempotencyKey],
        ['error', 'INVALID_RESPONSE', 'string'],
        what,
      );
    }
  });
});

describe('ramps.get', () => {
  test('fetched; a missing stellarTxHash reads as null; another user’s ramp is an error outcome', async () => {
    const hash = 'a'.repeat(64);
    const { api, requests } = await answering(`GET ${TX_PATH}`, [
      fetched('processing', { stellarTxHash: undefined }),
      fetched('completed', { stellarTxHash: hash }),
      fail(404, 'SDK_RAMPS_TX_NOT_FOUND', 'Ramp transaction not found'),
    ]);
    assert.deepEqual(await ramps.get(api, TX_ID), { status: 'fetched', transaction: transaction('processing') });
    assertOneSessionRequest(requests(), `GET ${TX_PATH}`);
    const done = await ramps.get(api, TX_ID);
    assert.equal(done.status === 'fetched' && done.transaction.stellarTxHash, hash);
    assert.deepEqual(await ramps.get(api, TX_ID), {
      status: 'error',
      code: 'SDK_RAMPS_TX_NOT_FOUND',
      httpStatus: 404,
      message: 'Ramp transaction not found',
    });
  });
});

describe('ramps.waitForFinal', () => {
  test('reads at once, then every interval, reporting each update, until completed', async () => {
    const { api, calls } = await answering(`GET ${TX_PATH}`, [
      fetched('awaiting_deposit', { depositInstructions: deposit }),
      fetched('processing'),
      fetched('completed', { stellarTxHash: 'b'.repeat(64) }),
    ]);
    const updates: string[] = [];
    const started = Date.now();
    const out = await ramps.waitForFinal(api, TX_ID, { intervalMs: 250, onUpdate: (t) => updates.push(t.status) });
    assert.equal(out.status, 'final', JSON.stringify(out));
    assert.deepEqual(out.status === 'final' && [out.transaction.status, out.transaction.stellarTxHash], [
      'completed',
      'b'.repeat(64),
    ]);
    assert.deepEqual(updates, ['awaiting_deposit', 'processing']);
    assert.equal(calls().length, 3);
    assert.ok(Date.now() - started >= 450, 'two pauses between three reads');
  });

  test('failed and expired are final too; an already final ramp answers at the first read', async () => {
    for (const status of ['failed', 'expired']) {
      const { api } = await answering(`GET ${TX_PATH}`, [fetched('processing'), fetched(status)]);
      const out = await ramps.waitForFinal(api, TX_ID, { intervalMs: 250 });
      assert.deepEqual([out.status, out.status === 'final' && out.transaction.status], ['final', status]);
    }
    const done = await answering(`GET ${TX_PATH}`, [fetched('completed')]);
    assert.equal((await ramps.waitForFinal(done.api, TX_ID)).status, 'final');
    assert.equal(done.calls().length, 1);
  });

  test('blips (no answer, 503, the provider failing upstream) are polled through; another error ends the wait', async () => {
    const blips = await answering(`GET ${TX_PATH}`, [
      'network-error',
      'network-error',
      fail(503, 'SERVICE_UNAVAILABLE'),
      fail(503, 'SERVICE_UNAVAILABLE'),
      refused(502, 'SDK_RAMPS_BRIDGE_ERROR'),
      refused(502, 'SDK_RAMPS_BRIDGE_ERROR'),
      fetched('completed'),
    ]);
    const out = await ramps.waitForFinal(blips.api, TX_ID, { intervalMs: 250 });
    assert.equal(out.status, 'final', JSON.stringify(out));
    const gone = await answering(`GET ${TX_PATH}`, [
      fetched('processing'),
      fail(404, 'SDK_RAMPS_TX_NOT_FOUND', 'Ramp transaction not found'),
    ]);
    const ended = await ramps.waitForFinal(gone.api, TX_ID, { intervalMs: 250 });
    assert.deepEqual([ended.status, ended.status === 'error' && ended.code], ['error', 'SDK_RAMPS_TX_NOT_FOUND']);
  });

  test('an abort stops the wait during a pause, and before the first read when already aborted', async () => {
    const { api, calls } = await answering(`GET ${TX_PATH}`, [fetched('processing')]);
    const controller = new AbortController();
    const started = Date.now();
    const out = await ramps.waitForFinal(api, TX_ID, {
      intervalMs: 60_000,
      signal: controller.signal,
      onUpdate: () => controller.abort(),
    });
    assert.deepEqual(out, { status: 'aborted', txId: TX_ID });
    assert.ok(Date.now() - started < 5_000, 'the minute-long pause ended with the abort');
    assert.equal(calls().length, 1);
    assert.equal((await ramps.waitForFinal(api, TX_ID, { signal: controller.signal })).status, 'aborted');
    assert.equal(calls().length, 1, 'no read once aborted');
  });

  test('the deadline ends the wait as timed_out with the last read, the last pause cut short', async () => {
    const { api, calls } = await answering(`GET ${TX_PATH}`, [
      fetched('awaiting_deposit', { depositInstructions: deposit }),
    ]);
    const started = Date.now();
    // The default interval (5 s) is longer than the deadline: one read, then a pause cut to the deadline.
    const out = await ramps.waitForFinal(api, TX_ID, { timeoutMs: 400 });
    const took = Date.now() - started;
    assert.deepEqual(out, {
      status: 'timed_out',
      txId: TX_ID,
      transaction: transaction('awaiting_deposit', { depositInstructions: deposit }),
    });
    assert.equal(calls().length, 1);
    assert.ok(took >= 350 && took < 3_000, `timed out after ${took} ms`);
  });

  test('a read still unanswered at the deadline is cut off: timed_out, without a transaction', async () => {
    const fake = emailSignInService().on(`GET ${TX_PATH}`, () => new Promise<FakeAnswer>(() => {}));
    const { api } = await signedInClient(fake);
    const started = Date.now();
    assert.deepEqual(await ramps.waitForFinal(api, TX_ID, { timeoutMs: 300 }), { status: 'timed_out', txId: TX_ID });
    assert.ok(Date.now() - started < 5_000, 'the hanging read did not hold the wait');
  });
});
