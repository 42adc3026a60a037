// The Etherfuse ramp adapter against a local stand-in of Etherfuse's API (tests/support/rampStandIns/etherfuse.ts):
// onboarding (KYC), quotes (fee, bounds), orders (SPEI deposit, anchor-mode off-ramp payment), status mapping,
// upstream failures and hostile answers, and the HMAC webhook signature over the canonical JSON body.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Keypair } from '@stellar/stellar-sdk';
import { etherfuseRampProvider } from '../../src/domain/ramps/etherfuse';
import {
  RampRefusal,
  type ProviderQuote,
  type RampCall,
  type RampDeps,
  type RampQuoteRequest,
  type RampRefusalKind,
  type StoredRamp,
} from '../../src/domain/ramps/providers';
import { UpstreamFailure } from '../../src/domain/ramps/upstream';
import type { App } from '../../src/domain/apps/store';
import type { WalletRecord } from '../../src/domain/wallets/store';
import { startEtherfuseStandIn, type EtherfuseStandIn } from '../support/rampStandIns/etherfuse';

const USDC = 'USDC:GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN';
const API_KEY = 'test-fake-etherfuse-key';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let standIn: EtherfuseStandIn;
let deps: RampDeps;
let webhookSecret: string;

before(async () => {
  webhookSecret = randomBytes(32).toString('base64');
  standIn = await startEtherfuseStandIn({ apiKey: API_KEY, webhookSecret });
  deps = {
    ramps: { bridgeApiUrl: 'http://127.0.0.1:9', etherfuseApiUrl: standIn.url, allowInsecure: true, timeoutMs: 2000 },
  } as unknown as RampDeps;
});

after(() => standIn.close());

function fakeCall(options: { credentials?: Record<string, string> } = {}): RampCall {
  const userId = `usr_${randomBytes(6).toString('hex')}`;
  return {
    app: { id: 'app_etherfuse_test', network: 'mainnet', assets: [USDC] } as unknown as App,
    network: 'mainnet',
    credentials: options.credentials ?? { apiKey: API_KEY, webhookSecret },
    now: new Date(),
    user: {
      userId,
      email: `${userId}@example.test`,
      wallet: { publicKey: Keypair.random().publicKey(), network: 'mainnet' } as unknown as WalletRecord,
      kycStatus: 'none',
    },
    signChallenge: () => Promise.reject(new Error('not used')),
  };
}

/** A call whose user Etherfuse has verified. */
function verifiedCall(options: Parameters<typeof fakeCall>[0] = {}): RampCall {
  const call = fakeCall(options);
  standIn.setKycStatus(call.user.wallet.publicKey, 'approved');
  return call;
}

function request(overrides: Partial<RampQuoteRequest> = {}): RampQuoteRequest {
  return { direction: 'on', fiatCurrency: 'MXN', asset: USDC, amount: '1000', amountIn: 'fiat', ...overrides };
}

function storedRamp(req: RampQuoteRequest, quote: ProviderQuote, providerRef: string | null = null): StoredRamp {
  return {
    rampTxId: `rmt_${randomBytes(6).toString('hex')}`,
    quote: { ...req, ...quote, quoteId: `rmq_${randomBytes(6).toString('hex')}`, providerId: 'etherfuse' },
    status: 'awaiting_deposit',
    providerRef,
    stellarTxHash: null,
    createdAt: new Date(),
  };
}

async function refusalOf(promise: Promise<unknown>): Promise<RampRefusalKind> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof RampRefusal) return err.refusal;
    throw err;
  }
  assert.fail('expected a RampRefusal');
}

async function upstreamFailureOf(promise: Promise<unknown>): Promise<void> {
  const err = await promise.then(
    () => assert.fail('expected an UpstreamFailure'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof UpstreamFailure, `expected an UpstreamFailure, got ${String(err)}`);
}

async function started(call: RampCall, req: RampQuoteRequest) {
  const quote = await etherfuseRampProvider.quote(deps, call, req);
  const ramp = storedRamp(req, quote);
  const state = await etherfuseRampProvider.start(deps, call, ramp);
  return { quote, ramp: { ...ramp, providerRef: state.providerRef ?? null }, state };
}

describe('Etherfuse routes', () => {
  test('MXN on and off for Circle USDC', async () => {
    const routes = await etherfuseRampProvider.routes(deps, fakeCall(), [
      USDC,
      'EURC:GDHU6WRG4IEQXM5NZ4BMPKOXHW76MZM4Y2IEMFDVXBSDP6SJY4ITNPP2',
    ]);
    assert.deepEqual(routes, [
      { direction: 'on', fiatCurrency: 'MXN', asset: USDC },
      { direction: 'off', fiatCurrency: 'MXN', asset: USDC },
    ]);
  });
});

describe('Etherfuse onboarding', () => {
  test('an unknown customer gets a presigned onboarding URL; the same ids every time; then pending, then verified', async () => {
    const call = fakeCall();
    const first = await refusalOf(etherfuseRampProvider.quote(deps, call, request()));
    assert.equal(first.kind, 'kyc_required');
    assert.match(
      first.kind === 'kyc_required' ? first.kycUrl : '',
      /^https:\/\/onboarding\.etherfuse-stand-in\.test\//,
    );
    const onboarding = standIn.requests.filter((r) => r.path === '/ramp/onboarding-url').at(-1)!;
    assert.equal(onboarding.headers.authorization, API_KEY);
    const body = onboarding.body as Record<string, unknown>;
    assert.match(String(body.customerId), UUID);
    assert.match(String(body.bankAccountId), UUID);
    assert.equal(body.publicKey, call.user.wallet.publicKey);
    assert.equal(body.blockchain, 'stellar');
    assert.deepEqual(body.userInfo, { email: call.user.email });

    const second = await refusalOf(etherfuseRampProvider.quote(deps, call, request()));
    assert.equal(second.kind, 'kyc_required');
    const again = standIn.requests.filter((r) => r.path === '/ramp/onboarding-url').at(-1)!.body as Record<
      string,
      unknown
    >;
    assert.equal(again.customerId, body.customerId);
    assert.equal(again.bankAccountId, body.bankAccountId);

    standIn.setKycStatus(call.user.wallet.publicKey, 'proposed');
    assert.equal((await refusalOf(etherfuseRampProvider.quote(deps, call, request()))).kind, 'kyc_required');
    standIn.setKycStatus(call.user.wallet.publicKey, 'approved');
    assert.equal((await etherfuseRampProvider.quote(deps, call, request())).fiatAmount, '1000.00');
  });

  test('a wrong API key is the app’s configuration', async () => {
    const call = fakeCall({ credentials: { apiKey: 'Bearer test-fake-etherfuse-key' } });
    assert.equal((await refusalOf(etherfuseRampProvider.quote(deps, call, request()))).kind, 'not_configured');
  });
});

describe('Etherfuse quotes', () => {
  test('on-ramp: Etherfuse’s quote, its fee in MXN, its id and expiry kept', async () => {
    const call = verifiedCall();
    standIn.setRate('17.50', 20);
    const quote = await etherfuseRampProvider.quote(deps, call, request({ amount: '1000' }));
    // 1000 MXN less 20 bps (2.00) = 998 / 17.50 = 57.0285714 USDC.
    assert.equal(quote.fiatAmount, '1000.00');
    assert.equal(quote.cryptoAmount, '57.0285714');
    assert.equal(quote.fee, '2.00');
    assert.equal(quote.minAmount, '100.00');
    assert.equal(quote.maxAmount, '250000.00');
    assert.match(quote.providerRef ?? '', /^[0-9a-f-]{36}$/);
    const sent = standIn.requests.filter((r) => r.path === '/ramp/quote').at(-1)!.body as Record<string, unknown>;
    assert.equal(sent.quoteId, quote.providerRef);
    assert.deepEqual(sent.quoteAssets, { type: 'onramp', sourceAsset: 'MXN', targetAsset: USDC });
    assert.equal(sent.sourceAmount, '1000.00');
    assert.equal(sent.walletAddress, call.user.wallet.publicKey);
    const ttl = quote.expiresAt.getTime() - Date.now();
    assert.ok(ttl > 60_000 && ttl <= 120_000, `Etherfuse's 2-minute expiry, got ${ttl} ms`);
  });

  test('off-ramp: priced from the USDC sent, the fee (in USDC) shown in MXN', async () => {
    const call = verifiedCall();
    standIn.setRate('17.50', 20);
    const quote = await etherfuseRampProvider.quote(
      deps,
      call,
      request({ direction: 'off', amount: '40', amountIn: 'crypto' }),
    );
    // 40 USDC less 0.08 = 39.92 x 17.50 = 698.60 MXN; the fee 0.08 USDC = 1.40 MXN.
    assert.equal(quote.cryptoAmount, '40');
    assert.equal(quote.fiatAmount, '698.60');
    assert.equal(quote.fee, '1.40');
  });

  test('out of range at the minimum and the maximum (MXN)', async () => {
    const call = verifiedCall();
    const low = await refusalOf(etherfuseRampProvider.quote(deps, call, request({ amount: '99.99' })));
    assert.deepEqual(low.kind === 'out_of_range' && [low.limit, low.limitAmount, low.limitCurrency], [
      'min',
      '100.00',
      'MXN',
    ]);
    const high = await refusalOf(etherfuseRampProvider.quote(deps, call, request({ amount: '250000.01' })));
    assert.deepEqual(high.kind === 'out_of_range' && [high.limit, high.limitAmount, high.limitCurrency], [
      'max',
      '250000.00',
      'MXN',
    ]);
    const offLow = await refusalOf(
      etherfuseRampProvider.quote(deps, call, request({ direction: 'off', amount: '5', amountIn: 'crypto' })),
    );
    assert.equal(offLow.kind === 'out_of_range' && offLow.limit, 'min');
  });

  test('an amount on the receiving side is refused: Etherfuse prices from the amount sent', async () => {
    const call = verifiedCall();
    const refusal = await refusalOf(
      etherfuseRampProvider.quote(deps, call, request({ amount: '50', amountIn: 'crypto' })),
    );
    assert.equal(refusal.kind, 'route_not_offered');
  });
});

describe('Etherfuse orders', () => {
  test('on-ramp: the order from the quote waits for a SPEI payment to its CLABE', async () => {
    const call = verifiedCall();
    const { quote, ramp, state } = await started(call, request({ amount: '1500' }));
    assert.equal(state.status, 'awaiting_deposit');
    assert.match(state.providerRef ?? '', UUID);
    const instructions = state.depositInstructions!;
    assert.equal(instructions.method, 'spei');
    assert.equal(instructions.amount, '1500.00');
    assert.equal(instructions.currency, 'MXN');
    assert.equal(instructions.reference, state.providerRef);
    assert.match(instructions.details.clabe ?? '', /^646180\d{12}$/);
    assert.equal(instructions.details.beneficiary, 'Etherfuse MX');
    assert.equal(instructions.details.bankName, 'STP');
    const sent = standIn.requests.filter((r) => r.method === 'POST' && r.path === '/ramp/order').at(-1)!.body as Record<
      string,
      unknown
    >;
    assert.equal(sent.quoteId, quote.providerRef);
    assert.equal(sent.orderId, state.providerRef);
    assert.equal(sent.publicKey, call.user.wallet.publicKey);
    assert.equal(sent.useAnchor, undefined);
    // A start of the same quote retried after a lost answer (the service's new ramp row): Etherfuse answers 409 and
    // the same order is read.
    const again = await etherfuseRampProvider.start(deps, call, {
      ...ramp,
      rampTxId: 'rmt_retried',
      providerRef: null,
    });
    assert.equal(again.providerRef, state.providerRef);
    assert.equal(again.depositInstructions?.details.clabe, instructions.details.clabe);
  });

  test('off-ramp: anchor mode, the USDC to Etherfuse’s Stellar account with its memo', async () => {
    const call = verifiedCall();
    const { state } = await started(call, request({ direction: 'off', amount: '40', amountIn: 'crypto' }));
    assert.equal(state.status, 'processing');
    assert.equal(state.payment?.destination, standIn.anchorAccount);
    assert.equal(state.payment?.asset, USDC);
    assert.equal(state.payment?.amount, '40');
    assert.equal(state.payment?.memo?.type, 'hash');
    assert.match(state.payment?.memo?.value ?? '', /^[0-9a-f]{64}$/);
    assert.equal(state.payment?.action, 'Send 40 USDC to Etherfuse');
    const sent = standIn.requests.filter((r) => r.method === 'POST' && r.path === '/ramp/order').at(-1)!.body as Record<
      string,
      unknown
    >;
    assert.equal(sent.useAnchor, true);
  });

  test('status: funded is processing, completed and finalized are completed, failed/refunded/canceled are failed', async () => {
    const call = verifiedCall();
    const { ramp } = await started(call, request());
    const orderId = ramp.providerRef!;
    standIn.setOrderStatus(orderId, 'funded');
    assert.equal((await etherfuseRampProvider.status(deps, call, ramp)).status, 'processing');
    const hash = randomBytes(32).toString('hex');
    standIn.setOrderStatus(orderId, 'completed', { confirmedTxSignature: hash });
    assert.deepEqual(await etherfuseRampProvider.status(deps, call, ramp), {
      status: 'completed',
      providerRef: orderId,
      stellarTxHash: hash,
    });
    standIn.setOrderStatus(orderId, 'finalized');
    assert.equal((await etherfuseRampProvider.status(deps, call, ramp)).status, 'completed');
    for (const failed of ['failed', 'refunded', 'canceled']) {
      standIn.setOrderStatus(orderId, failed);
      const state = await etherfuseRampProvider.status(deps, call, ramp);
      assert.equal(state.status, 'failed');
      assert.equal(state.failureReason, `Etherfuse order ${failed}`);
    }
  });
});

describe('Etherfuse failures', () => {
  test('a 500 from Etherfuse is an UpstreamFailure', async () => {
    const call = verifiedCall();
    standIn.failNext(1);
    await upstreamFailureOf(etherfuseRampProvider.quote(deps, call, request()));
  });

  test('hostile quotes are UpstreamFailures, never TypeErrors', async () => {
    const call = verifiedCall();
    const good = {
      quoteId: '3f2a1b0c-9d8e-4f6a-8b4c-3d2e1f0a9b8c',
      sourceAmount: '1000',
      destinationAmount: '57.02',
      feeAmount: '2.00',
      exchangeRate: '17.50',
      expiresAt: new Date(Date.now() + 120_000).toISOString(),
    };
    const hostile: unknown[] = [
      { ...good, destinationAmount: 57.02 },
      { ...good, quoteId: undefined },
      { ...good, feeAmount: '-2' },
      { ...good, sourceAmount: '1000.000000001' },
      { ...good, expiresAt: 'soon' },
      [],
      'not json {',
    ];
    for (const body of hostile) {
      standIn.answerNext(200, { customerId: 'x', status: 'approved' });
      standIn.answerNext(200, body);
      await upstreamFailureOf(etherfuseRampProvider.quote(deps, call, request()));
    }
  });

  test('hostile orders are UpstreamFailures', async () => {
    const call = verifiedCall();
    const { ramp } = await started(call, request());
    const order = standIn.orders.get(ramp.providerRef!)!;
    const hostile: unknown[] = [
      { ...order, amountInFiat: 1000 },
      { ...order, status: 'teleported' },
      { ...order, orderId: 42 },
      { ...order, depositClabe: '1234' },
      { ...order, depositClabe: null },
    ];
    for (const body of hostile) {
      standIn.answerNext(200, body);
      await upstreamFailureOf(etherfuseRampProvider.status(deps, call, ramp));
    }
    const off = await started(verifiedCall(), request({ direction: 'off', amount: '40', amountIn: 'crypto' }));
    const offOrder = standIn.orders.get(off.ramp.providerRef!)!;
    for (const body of [
      { ...offOrder, withdrawMemo: 'not-a-hash' },
      { ...offOrder, withdrawAnchorAccount: null },
    ]) {
      standIn.answerNext(200, body);
      await upstreamFailureOf(etherfuseRampProvider.status(deps, call, off.ramp));
    }
  });
});

describe('Etherfuse webhooks', () => {
  test('order_updated signed with the secret becomes the order’s new state', async () => {
    const call = verifiedCall();
    const { ramp } = await started(call, request());
    standIn.setOrderStatus(ramp.providerRef!, 'funded');
    const update = await etherfuseRampProvider.webhook!(
      deps,
      call,
      standIn.signWebhook(standIn.orderEvent(ramp.providerRef!)),
    );
    assert.deepEqual(update, {
      providerRef: ramp.providerRef,
      state: { status: 'processing', providerRef: ramp.providerRef },
    });
  });

  test('delivered over HTTP (a body that is not in canonical form) it verifies', async () => {
    const call = verifiedCall();
    const { ramp } = await started(call, request());
    standIn.setOrderStatus(ramp.providerRef!, 'completed');
    const received: { headers: Record<string, string | undefined>; rawBody: Buffer }[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers as Record<string, string | undefined>, rawBody: Buffer.concat(chunks) });
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/etherfuse`;
      assert.equal(await standIn.sendWebhook(url, standIn.orderEvent(ramp.providerRef!)), 200);
      const update = await etherfuseRampProvider.webhook!(deps, call, received[0]!);
      assert.equal(update?.state.status, 'completed');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  test('another secret, a tampered body or no signature is webhook_signature_invalid', async () => {
    const call = verifiedCall();
    const { ramp } = await started(call, request());
    const event = standIn.orderEvent(ramp.providerRef!);
    const signed = standIn.signWebhook(event);
    const otherSecret = standIn.signWebhook(event, randomBytes(32).toString('base64'));
    const tampered = { ...signed, rawBody: Buffer.from(signed.rawBody.toString().replace('"created"', '"completed"')) };
    const missing = { headers: {}, rawBody: signed.rawBody };
    const notJson = { headers: signed.headers, rawBody: Buffer.from('{') };
    for (const request of [otherSecret, tampered, missing, notJson]) {
      assert.equal(
        (await refusalOf(etherfuseRampProvider.webhook!(deps, call, request))).kind,
        'webhook_signature_invalid',
      );
    }
  });

  test('events about customers concern no ramp; without a secret webhooks are not configured', async () => {
    const call = fakeCall();
    const event = { customer_updated: { customerId: '3f2a1b0c-9d8e-4f6a-8b4c-3d2e1f0a9b8c' } };
    assert.equal(await etherfuseRampProvider.webhook!(deps, call, standIn.signWebhook(event)), undefined);
    const unconfigured = fakeCall({ credentials: { apiKey: API_KEY } });
    assert.equal(
      (await refusalOf(etherfuseRampProvider.webhook!(deps, unconfigured, standIn.signWebhook(event)))).kind,
      'not_configured',
    );
  });
});
