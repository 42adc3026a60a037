// The Bridge ramp adapter against a local stand-in of Bridge's API (tests/support/rampStandIns/bridge.ts): KYC links,
// pricing (fee, bounds), on- and off-ramp transfers, state mapping, testnet, upstream failures and hostile answers,
// and webhook signatures (a key pair made here; the stand-in signs like Bridge).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Keypair } from '@stellar/stellar-sdk';
import { bridgeRampProvider } from '../../src/domain/ramps/bridge';
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
import { startBridgeStandIn, type BridgeStandIn } from '../support/rampStandIns/bridge';

const USDC = 'USDC:GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN';
const API_KEY = 'sk-test-fake-bridge-key';

let standIn: BridgeStandIn;
let deps: RampDeps;
let privateKey: KeyObject;
let publicKeyPem: string;

before(async () => {
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  privateKey = pair.privateKey;
  publicKeyPem = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  standIn = await startBridgeStandIn({ apiKey: API_KEY, webhookPrivateKey: privateKey });
  deps = {
    ramps: { bridgeApiUrl: standIn.url, etherfuseApiUrl: 'http://127.0.0.1:9', allowInsecure: true, timeoutMs: 2000 },
  } as unknown as RampDeps;
});

after(() => standIn.close());

function fakeCall(options: { network?: 'testnet' | 'mainnet'; credentials?: Record<string, string> } = {}): RampCall {
  const network = options.network ?? 'mainnet';
  const userId = `usr_${randomBytes(6).toString('hex')}`;
  return {
    app: { id: 'app_bridge_test', network, assets: [USDC] } as unknown as App,
    network,
    credentials: options.credentials ?? { apiKey: API_KEY, webhookPublicKey: publicKeyPem },
    now: new Date(),
    user: {
      userId,
      email: `${userId}@example.test`,
      wallet: { publicKey: Keypair.random().publicKey(), network } as unknown as WalletRecord,
      kycStatus: 'none',
    },
    signChallenge: () => Promise.reject(new Error('not used')),
  };
}

/** A call whose user Bridge has approved (terms and KYC). */
function approvedCall(options: Parameters<typeof fakeCall>[0] = {}): { call: RampCall; customerId: string } {
  const call = fakeCall(options);
  const link = standIn.setKyc(call.user.email!, { kyc_status: 'approved', tos_status: 'approved' });
  return { call, customerId: link.customer_id };
}

function request(overrides: Partial<RampQuoteRequest> = {}): RampQuoteRequest {
  return { direction: 'on', fiatCurrency: 'USD', asset: USDC, amount: '100', amountIn: 'fiat', ...overrides };
}

function storedRamp(req: RampQuoteRequest, quote: ProviderQuote, providerRef: string | null = null): StoredRamp {
  return {
    rampTxId: `rmt_${randomBytes(6).toString('hex')}`,
    quote: { ...req, ...quote, quoteId: `rmq_${randomBytes(6).toString('hex')}`, providerId: 'bridge' },
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

async function upstreamFailureOf(promise: Promise<unknown>): Promise<UpstreamFailure> {
  const err = await promise.then(
    () => assert.fail('expected an UpstreamFailure'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof UpstreamFailure, `expected an UpstreamFailure, got ${String(err)}`);
  return err;
}

async function startedOnRamp(call: RampCall, amount = '100') {
  const req = request({ amount });
  const quote = await bridgeRampProvider.quote(deps, call, req);
  const ramp = storedRamp(req, quote);
  const state = await bridgeRampProvider.start(deps, call, ramp);
  return { ramp: { ...ramp, providerRef: state.providerRef ?? null }, state };
}

describe('Bridge routes', () => {
  test('USD and EUR, on and off, for Circle USDC on mainnet; none for another issuer', async () => {
    const call = fakeCall();
    const other = 'USDC:GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5';
    const routes = await bridgeRampProvider.routes(deps, call, [USDC, other]);
    assert.equal(routes.length, 4);
    assert.ok(routes.every((r) => r.asset === USDC));
    assert.deepEqual(
      new Set(routes.map((r) => `${r.direction}:${r.fiatCurrency}`)),
      new Set(['on:USD', 'off:USD', 'on:EUR', 'off:EUR']),
    );
  });
});

describe('Bridge KYC', () => {
  test('a new user: a KYC link is created and the terms link is returned first, then the KYC link', async () => {
    const call = fakeCall();
    const first = await refusalOf(bridgeRampProvider.quote(deps, call, request()));
    assert.equal(first.kind, 'kyc_required');
    assert.match(first.kind === 'kyc_required' ? first.kycUrl : '', /^https:\/\/tos\.bridge-stand-in\.test\//);
    const post = standIn.requests.find((r) => r.method === 'POST' && r.path === '/v0/kyc_links');
    assert.ok(post, 'a KYC link was created');
    assert.equal(post.headers['api-key'], API_KEY);
    assert.ok(post.headers['idempotency-key']);
    assert.deepEqual(post.body, { email: call.user.email, type: 'individual' });

    standIn.setKyc(call.user.email!, { kyc_status: 'under_review', tos_status: 'approved' });
    const second = await refusalOf(bridgeRampProvider.quote(deps, call, request()));
    assert.equal(second.kind, 'kyc_required');
    assert.match(second.kind === 'kyc_required' ? second.kycUrl : '', /^https:\/\/kyc\.bridge-stand-in\.test\//);

    standIn.setKyc(call.user.email!, { kyc_status: 'approved' });
    const quote = await bridgeRampProvider.quote(deps, call, request());
    assert.equal(quote.fiatAmount, '100.00');
  });

  test('a user without an email cannot be onboarded at Bridge', async () => {
    const call = fakeCall();
    call.user.email = null;
    assert.equal((await refusalOf(bridgeRampProvider.quote(deps, call, request()))).kind, 'route_not_offered');
  });

  test('a wrong API key is the app’s configuration, not an upstream failure', async () => {
    const call = fakeCall({ credentials: { apiKey: 'sk-test-wrong' } });
    assert.equal((await refusalOf(bridgeRampProvider.quote(deps, call, request()))).kind, 'not_configured');
  });
});

describe('Bridge quotes', () => {
  test('USD on-ramp: 1:1 less the developer fee, with the route’s bounds', async () => {
    const { call } = approvedCall({ credentials: { apiKey: API_KEY, developerFeePercent: '0.5' } });
    const quote = await bridgeRampProvider.quote(deps, call, request({ amount: '100' }));
    assert.equal(quote.fiatAmount, '100.00');
    assert.equal(quote.fee, '0.50');
    assert.equal(quote.cryptoAmount, '99.5');
    assert.equal(quote.minAmount, '1.00');
    assert.equal(quote.maxAmount, '10000.00');
    assert.ok(quote.expiresAt.getTime() > call.now.getTime());
  });

  test('USD on-ramp asked in USDC: the fiat that delivers at least that much', async () => {
    const { call } = approvedCall({ credentials: { apiKey: API_KEY, developerFeePercent: '1' } });
    const quote = await bridgeRampProvider.quote(deps, call, request({ amount: '10', amountIn: 'crypto' }));
    assert.equal(quote.fiatAmount, '10.11');
    assert.equal(quote.fee, '0.10');
    assert.equal(quote.cryptoAmount, '10.01');
  });

  test('EUR off-ramp: priced at Bridge’s sell rate, the fee converted to EUR', async () => {
    const { call } = approvedCall({ credentials: { apiKey: API_KEY, developerFeePercent: '0.5' } });
    standIn.setRate('eur', { midmarket_rate: '0.92', buy_rate: '0.93', sell_rate: '0.91' });
    const quote = await bridgeRampProvider.quote(
      deps,
      call,
      request({ direction: 'off', fiatCurrency: 'EUR', amount: '50', amountIn: 'crypto' }),
    );
    // 50 USDC less 0.25 (0.5 %) = 49.75 at 0.91 = 45.2725 -> 45.27 EUR; the fee 0.25 USDC = 0.2275 -> 0.22 EUR.
    assert.equal(quote.cryptoAmount, '50');
    assert.equal(quote.fiatAmount, '45.27');
    assert.equal(quote.fee, '0.22');
    const rateCall = standIn.requests.find((r) => r.path.startsWith('/v0/exchange_rates'));
    assert.equal(rateCall?.path, '/v0/exchange_rates?from=usd&to=eur');
  });

  test('out of range at the minimum and the maximum, with the bound and its currency', async () => {
    const { call } = approvedCall();
    const low = await refusalOf(bridgeRampProvider.quote(deps, call, request({ amount: '0.99' })));
    assert.deepEqual(low.kind === 'out_of_range' && [low.limit, low.limitAmount, low.limitCurrency], [
      'min',
      '1.00',
      'USD',
    ]);
    const high = await refusalOf(bridgeRampProvider.quote(deps, call, request({ amount: '10000.01' })));
    assert.deepEqual(high.kind === 'out_of_range' && [high.limit, high.limitAmount, high.limitCurrency], [
      'max',
      '10000.00',
      'USD',
    ]);
    assert.ok(await bridgeRampProvider.quote(deps, call, request({ amount: '10000' })));
  });

  test('a currency Bridge does not ramp is not offered', async () => {
    const { call } = approvedCall();
    assert.equal(
      (await refusalOf(bridgeRampProvider.quote(deps, call, request({ fiatCurrency: 'MXN' })))).kind,
      'route_not_offered',
    );
  });
});

describe('Bridge on-ramp', () => {
  test('start: a transfer from ACH push to the wallet, awaiting the deposit per Bridge’s instructions', async () => {
    const { call, customerId } = approvedCall();
    const { ramp, state } = await startedOnRamp(call, '250');
    assert.equal(state.status, 'awaiting_deposit');
    assert.match(state.providerRef ?? '', /^transfer_/);
    const instructions = state.depositInstructions!;
    assert.equal(instructions.method, 'ach');
    assert.equal(instructions.amount, '250.00');
    assert.equal(instructions.currency, 'USD');
    assert.match(instructions.reference, /^BRG/);
    assert.equal(instructions.details.routingNumber, '101019644');
    assert.equal(instructions.details.accountNumber, '900000000001');
    assert.equal(instructions.details.beneficiary, 'Bridge Stand-in Beneficiary');

    const sent = standIn.requests.filter((r) => r.method === 'POST' && r.path === '/v0/transfers').at(-1)!;
    assert.deepEqual(sent.body, {
      amount: '250.00',
      on_behalf_of: customerId,
      source: { payment_rail: 'ach_push', currency: 'usd' },
      destination: { payment_rail: 'stellar', currency: 'usdc', to_address: call.user.wallet.publicKey },
    });
    // A start of the same quote retried after a lost answer (the service's new ramp row) finds the same transfer.
    const again = await bridgeRampProvider.start(deps, call, { ...ramp, rampTxId: 'rmt_retried', providerRef: null });
    assert.equal(again.providerRef, ramp.providerRef);
  });

  test('status: payment_processed is completed with Bridge’s Stellar hash; returned and error are failed', async () => {
    const { call } = approvedCall();
    const { ramp } = await startedOnRamp(call);
    standIn.setTransferState(ramp.providerRef!, 'funds_received');
    assert.equal((await bridgeRampProvider.status(deps, call, ramp)).status, 'processing');
    const hash = randomBytes(32).toString('hex');
    standIn.setTransferState(ramp.providerRef!, 'payment_processed', { destination_tx_hash: hash });
    const done = await bridgeRampProvider.status(deps, call, ramp);
    assert.equal(done.status, 'completed');
    assert.equal(done.stellarTxHash, hash);

    for (const failed of ['returned', 'error', 'refunded', 'canceled']) {
      standIn.setTransferState(ramp.providerRef!, failed);
      const state = await bridgeRampProvider.status(deps, call, ramp);
      assert.equal(state.status, 'failed');
      assert.equal(state.failureReason, `Bridge transfer ${failed}`);
    }
  });

  test('EUR on-ramp: SEPA instructions with the IBAN and BIC', async () => {
    const { call } = approvedCall();
    standIn.setRate('eur', { midmarket_rate: '0.92', buy_rate: '0.93', sell_rate: '0.91' });
    const req = request({ fiatCurrency: 'EUR', amount: '93' });
    const quote = await bridgeRampProvider.quote(deps, call, req);
    assert.equal(quote.cryptoAmount, '100');
    const state = await bridgeRampProvider.start(deps, call, storedRamp(req, quote));
    assert.equal(state.depositInstructions?.method, 'sepa');
    assert.equal(state.depositInstructions?.currency, 'EUR');
    assert.equal(state.depositInstructions?.details.iban, 'DE89370400440532013000');
    assert.equal(state.depositInstructions?.details.bic, 'COBADEFFXXX');
  });

  test('testnet: the on-ramp stops at its deposit instructions (testnet_not_settleable carries them)', async () => {
    const { call } = approvedCall({ network: 'testnet' });
    const req = request({ asset: 'USDC:GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5' });
    const quote = await bridgeRampProvider.quote(deps, call, req);
    const refusal = await refusalOf(bridgeRampProvider.start(deps, call, storedRamp(req, quote)));
    assert.equal(refusal.kind, 'testnet_not_settleable');
    const instructions = refusal.kind === 'testnet_not_settleable' ? refusal.depositInstructions : undefined;
    assert.equal(instructions?.method, 'ach');
    assert.equal(instructions?.amount, '100.00');
    assert.match(instructions?.reference ?? '', /^BRG/);
  });
});

describe('Bridge off-ramp', () => {
  test('start: the USDC goes to Bridge’s Stellar deposit address with its memo, to the user’s bank account', async () => {
    const { call, customerId } = approvedCall();
    const accountId = standIn.addExternalAccount(customerId, 'usd');
    const req = request({ direction: 'off', amount: '40', amountIn: 'crypto' });
    const quote = await bridgeRampProvider.quote(deps, call, req);
    const state = await bridgeRampProvider.start(deps, call, storedRamp(req, quote));
    assert.equal(state.status, 'processing');
    assert.deepEqual(state.payment && { ...state.payment, memo: state.payment.memo?.type }, {
      destination: standIn.depositAddress,
      asset: USDC,
      amount: '40',
      memo: 'text',
      action: 'Send 40 USDC to Bridge',
    });
    assert.match(state.payment?.memo?.value ?? '', /^BRG/);
    const sent = standIn.requests.filter((r) => r.method === 'POST' && r.path === '/v0/transfers').at(-1)!;
    assert.deepEqual(sent.body, {
      amount: '40',
      on_behalf_of: customerId,
      source: { payment_rail: 'stellar', currency: 'usdc', from_address: call.user.wallet.publicKey },
      destination: { payment_rail: 'ach', currency: 'usd', external_account_id: accountId },
    });
    const ramp = storedRamp(req, quote, state.providerRef ?? null);
    standIn.setTransferState(state.providerRef!, 'payment_processed');
    assert.equal((await bridgeRampProvider.status(deps, call, ramp)).status, 'completed');
  });

  test('without a bank account at Bridge the off-ramp is not offered', async () => {
    const { call } = approvedCall();
    const req = request({ direction: 'off', amount: '40', amountIn: 'crypto' });
    const quote = await bridgeRampProvider.quote(deps, call, req);
    assert.equal(
      (await refusalOf(bridgeRampProvider.start(deps, call, storedRamp(req, quote)))).kind,
      'route_not_offered',
    );
  });

  test('testnet: refused before any transfer is created', async () => {
    const { call } = approvedCall({ network: 'testnet' });
    const req = request({
      direction: 'off',
      amount: '40',
      amountIn: 'crypto',
      asset: 'USDC:GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5',
    });
    const quote = await bridgeRampProvider.quote(deps, call, req);
    const before = standIn.transfers.size;
    assert.equal(
      (await refusalOf(bridgeRampProvider.start(deps, call, storedRamp(req, quote)))).kind,
      'testnet_not_settleable',
    );
    assert.equal(standIn.transfers.size, before);
  });
});

describe('Bridge failures', () => {
  test('a 500 from Bridge is an UpstreamFailure', async () => {
    const { call } = approvedCall();
    standIn.failNext(1);
    await upstreamFailureOf(bridgeRampProvider.quote(deps, call, request()));
  });

  test('hostile answers are UpstreamFailures, never TypeErrors', async () => {
    const { call } = approvedCall();
    const hostile: unknown[] = [
      { data: [{ id: 5, email: call.user.email }] },
      { data: 'not a list' },
      [],
      null,
      'not json at all {',
    ];
    for (const body of hostile) {
      standIn.answerNext(200, body);
      await upstreamFailureOf(bridgeRampProvider.quote(deps, call, request()));
    }
    // A rate that is not a decimal string.
    standIn.setRate('eur', { midmarket_rate: '0.92', buy_rate: '0.93', sell_rate: '1e3' });
    await upstreamFailureOf(bridgeRampProvider.quote(deps, call, request({ fiatCurrency: 'EUR' })));
    standIn.setRate('eur', { midmarket_rate: '0.92', buy_rate: '0.93', sell_rate: '0.91' });
  });

  test('a transfer with no id, an unknown state or a numeric amount is an UpstreamFailure', async () => {
    const { call } = approvedCall();
    const { ramp } = await startedOnRamp(call);
    const transfer = standIn.transfers.get(ramp.providerRef!)!;
    const broken: unknown[] = [
      { ...transfer, id: undefined },
      { ...transfer, state: 'teleported' },
      { ...transfer, source_deposit_instructions: { ...transfer.source_deposit_instructions, amount: 100 } },
      { ...transfer, source_deposit_instructions: { ...transfer.source_deposit_instructions, amount: '1,000.00' } },
      { ...transfer, source_deposit_instructions: null },
      { ...transfer, source: 'ach' },
    ];
    for (const body of broken) {
      standIn.answerNext(200, body);
      await upstreamFailureOf(bridgeRampProvider.status(deps, call, ramp));
    }
  });
});

describe('Bridge webhooks', () => {
  test('a transfer event signed by Bridge becomes the transfer’s new state', async () => {
    const { call } = approvedCall();
    const { ramp } = await startedOnRamp(call);
    const hash = randomBytes(32).toString('hex');
    standIn.setTransferState(ramp.providerRef!, 'payment_processed', { destination_tx_hash: hash });
    const update = await bridgeRampProvider.webhook!(
      deps,
      call,
      standIn.signWebhook(standIn.transferEvent(ramp.providerRef!)),
    );
    assert.deepEqual(update, {
      providerRef: ramp.providerRef,
      state: { status: 'completed', providerRef: ramp.providerRef, stellarTxHash: hash },
    });
  });

  test('delivered over HTTP as Bridge sends it, the raw body and header verify', async () => {
    const { call } = approvedCall();
    const { ramp } = await startedOnRamp(call);
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
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/bridge`;
      assert.equal(await standIn.sendWebhook(url, standIn.transferEvent(ramp.providerRef!)), 200);
      const update = await bridgeRampProvider.webhook!(deps, call, received[0]!);
      assert.equal(update?.state.status, 'awaiting_deposit');
      assert.equal(update?.state.depositInstructions?.method, 'ach');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  test('a tampered body, another key, a missing header or an old timestamp is webhook_signature_invalid', async () => {
    const { call } = approvedCall();
    const { ramp } = await startedOnRamp(call);
    const event = standIn.transferEvent(ramp.providerRef!);
    const signed = standIn.signWebhook(event);
    const tampered = {
      ...signed,
      rawBody: Buffer.from(signed.rawBody.toString().replace('awaiting_funds', 'payment_processed')),
    };
    const otherKey = standIn.signWebhook(event, {
      privateKey: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey,
    });
    const old = standIn.signWebhook(event, { timestampMs: call.now.getTime() - 11 * 60_000 });
    const noHeader = { headers: {}, rawBody: signed.rawBody };
    const garbage = { headers: { 'x-webhook-signature': 't=abc,v0=!!!' }, rawBody: signed.rawBody };
    for (const request of [tampered, otherKey, old, noHeader, garbage]) {
      assert.equal(
        (await refusalOf(bridgeRampProvider.webhook!(deps, call, request))).kind,
        'webhook_signature_invalid',
      );
    }
    // Within 10 minutes is accepted.
    const recent = standIn.signWebhook(event, { timestampMs: call.now.getTime() - 9 * 60_000 });
    assert.ok(await bridgeRampProvider.webhook!(deps, call, recent));
  });

  test('an event about something else than a transfer concerns no ramp', async () => {
    const call = fakeCall();
    const event = {
      event_id: 'wh_1',
      event_category: 'customer',
      event_type: 'customer.updated',
      event_object: { id: 'cust_1' },
    };
    assert.equal(await bridgeRampProvider.webhook!(deps, call, standIn.signWebhook(event)), undefined);
  });

  test('without the webhook public key the app is not configured for webhooks', async () => {
    const call = fakeCall({ credentials: { apiKey: API_KEY } });
    const event = { event_id: 'wh_1', event_category: 'customer', event_type: 'customer.updated', event_object: {} };
    assert.equal(
      (await refusalOf(bridgeRampProvider.webhook!(deps, call, standIn.signWebhook(event)))).kind,
      'not_configured',
    );
  });
});
