// Ramps with Etherfuse (the local stand-in of tests/support/rampStandIns/etherfuse.ts, whose anchor account is the
// demo USDC issuer), end to end through the SDK API on localnet and real PostgreSQL. A user is refused a quote until
// Etherfuse's onboarding is done (403 with the onboarding URL), then on-ramps 2000 MXN into 100 USDC: the order waits
// for the SPEI payment to its CLABE, a refresh shows it funded, Etherfuse delivers (the issuer pays) and its signed
// order_updated webhook completes the ramp with that hash. An off-ramp of 40 USDC is paid at start from the custodial
// wallet to Etherfuse's anchor account with the order's memo (fee-bumped: the user's XLM does not move), and the
// webhook completes it. Each step is in the wallet's history and delivered as `ramp.updated`. Then the refusals:
// settings without the apiKey or with an unknown credential, webhooks with a bad signature (401) or for an app without
// the webhook secret (404), an expired quote, out-of-range amounts, Etherfuse answering 500 (502, then the retry
// works), and two off-ramps the wallet covers once (one is rejected on chain, nothing moved).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { FeeBumpTransaction, TransactionBuilder } from '@stellar/stellar-sdk';
import type { App } from '../../src/domain/apps/store';
import { rampSettingsOf } from '../../src/domain/ramps/settings';
import { seedCredentials, type SeededCredentials } from '../support/credentials';
import { eventually, gatewayOf } from '../support/funding';
import { startEtherfuseStandIn, type EtherfuseStandIn } from '../support/rampStandIns/etherfuse';
import {
  awaitRampSteps,
  assetBalance,
  deliverFromIssuer,
  demoIssuer,
  fundedRampUser,
  getRamp,
  postRampWebhook,
  quoteRamp,
  rampApp,
  rampUpdates,
  saveRampProviders,
  settingsRefusal,
  startRamp,
  xlmStroops,
  type QuoteInput,
  subscribeWebhooks,
} from '../support/ramps';
import { startTestService, type TestService } from '../support/service';
import type { UserClient } from '../support/users';
import { deliveryProblems, startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver';

const API_KEY = `ef-test-${randomBytes(8).toString('hex')}`;
const WEBHOOK_SECRET = randomBytes(32).toString('base64');

let standIn: EtherfuseStandIn;
let svc: TestService;
let receiver: WebhookReceiver;
let app: App;
let creds: SeededCredentials;
let usdc: string;
let secret: string;

before(async () => {
  standIn = await startEtherfuseStandIn({ apiKey: API_KEY, webhookSecret: WEBHOOK_SECRET });
  svc = await startTestService(
    {
      RAMPS_ALLOW_INSECURE: 'on',
      KYC_SANDBOX: 'on',
      RAMPS_SANDBOX: 'on',
      LEDGER_FOLLOWER: 'on',
      WEBHOOK_ALLOW_INSECURE: 'on',
      ETHERFUSE_API_URL: standIn.url,
    },
    { closeLedgersEveryMs: 200 },
  );
  // Off-ramps are paid to the issuer, which burns them: no trustline needed.
  standIn.setAnchorAccount(demoIssuer(svc).publicKey());
  // 19.96 MXN per USDC and a 0.2 % fee: 2000 MXN buy exactly 100 USDC.
  standIn.setRate('19.96', 20);
  receiver = await startWebhookReceiver();
  ({ app, creds, usdc } = await rampApp(svc));
  await saveRampProviders(svc, app, [
    {
      providerId: 'etherfuse',
      enabled: true,
      assets: [usdc],
      credentials: { apiKey: API_KEY, webhookSecret: WEBHOOK_SECRET },
    },
  ]);
  secret = await subscribeWebhooks(svc, app.id, receiver.url);
});
after(async () => {
  await receiver?.close();
  await svc?.stop();
  await standIn?.close();
});

const quote = (user: UserClient, input: QuoteInput) =>
  quoteRamp(user, { providerId: 'etherfuse', fiatCurrency: 'MXN', ...input });

async function quoteOk(user: UserClient, input: QuoteInput) {
  const res = await quote(user, input);
  assert.equal(res.status, 201, res.text);
  return res.body.content;
}

/** Etherfuse's order id of a ramp (its providerRef). */
async function orderIdOf(rampTxId: string): Promise<string> {
  const row = await svc.deps.db('ramp_transactions').where({ id: rampTxId }).first('provider_ref');
  assert.ok(row?.provider_ref, `ramp ${rampTxId} has an Etherfuse order`);
  return row.provider_ref as string;
}

/** Etherfuse's order_updated for the order as it is now, signed and delivered to the app's webhook URL. */
const orderWebhook = (orderId: string, appId = app.id) =>
  postRampWebhook(svc, 'etherfuse', appId, standIn.signWebhook(standIn.orderEvent(orderId)));

/** A user Etherfuse has onboarded (KYC approved for their wallet). */
async function onboardedUser(): Promise<UserClient> {
  const user = await fundedRampUser(svc, creds);
  standIn.setKycStatus(user.signIn.wallet.publicKey, 'approved');
  return user;
}

const rampRows = (quoteId: string) => svc.deps.db('ramp_transactions').where({ quote_id: quoteId });

describe('Etherfuse, end to end', () => {
  let user: UserClient;
  let wallet: string;
  let onRamp: { txId: string; deliveryHash: string };
  let offRamp: { txId: string; paymentHash: string };
  before(async () => {
    user = await fundedRampUser(svc, creds);
    wallet = user.signIn.wallet.publicKey;
  });

  test('providers: Etherfuse offers on and off in MXN for the demo USDC', async () => {
    const res = await user.call('listRampProviders', 'GET', '/v1/ramps/providers');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.content.providers, [
      {
        providerId: 'etherfuse',
        name: 'Etherfuse',
        directions: ['on', 'off'],
        fiatCurrencies: ['MXN'],
        assets: [usdc],
      },
    ]);
  });

  test("KYC first: 403 SDK_RAMPS_KYC_REQUIRED with Etherfuse's onboarding URL until it approves the wallet", async () => {
    const refused = await quote(user, { direction: 'on', asset: usdc, amount: '2000', amountIn: 'fiat' });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.code, 'SDK_RAMPS_KYC_REQUIRED');
    assert.match(refused.body.kycUrl, /^https:\/\/onboarding\.etherfuse-stand-in\.test\/onboarding\?token=/);
    const onboarding = standIn.requests.filter((r) => r.path === '/ramp/onboarding-url').at(-1)!;
    assert.equal((onboarding.body as { publicKey: string }).publicKey, wallet);
    standIn.setKycStatus(wallet, 'proposed');
    const stillRefused = await quote(user, { direction: 'on', asset: usdc, amount: '2000', amountIn: 'fiat' });
    assert.equal(stillRefused.status, 403, 'submitted is not approved');
    standIn.setKycStatus(wallet, 'approved');
  });

  test('on-ramp 2000 MXN -> 100 USDC: SPEI instructions, funded, delivered; the webhook completes it', async () => {
    const q = await quoteOk(user, { direction: 'on', asset: usdc, amount: '2000', amountIn: 'fiat' });
    assert.deepEqual(
      [q.fiatAmount, q.cryptoAmount, q.fee, q.minAmount, q.maxAmount, q.fiatCurrency],
      ['2000.00', '100', '4.00', '100.00', '250000.00', 'MXN'],
    );
    const validMs = Date.parse(q.expiresAt) - Date.now();
    assert.ok(validMs > 60_000 && validMs <= 120_000, `Etherfuse's 2 minutes (${validMs} ms)`);

    const started = await startRamp(user, q.quoteId);
    assert.equal(started.status, 201, started.text);
    const ramp = started.body.content;
    assert.equal(ramp.status, 'awaiting_deposit');
    assert.equal(ramp.provider, 'etherfuse');
    const orderId = await orderIdOf(ramp.txId);
    const order = standIn.orders.get(orderId)!;
    assert.deepEqual(ramp.depositInstructions, {
      method: 'spei',
      amount: '2000.00',
      currency: 'MXN',
      reference: orderId,
      details: { clabe: order.depositClabe, beneficiary: 'Etherfuse MX', bankName: 'STP' },
    });
    assert.match(String(order.depositClabe), /^\d{18}$/);
    const again = await startRamp(user, q.quoteId);
    assert.equal(again.status, 201, again.text);
    assert.equal(again.body.content.txId, ramp.txId, 'the same quote is the same ramp');
    assert.equal((await rampRows(q.quoteId)).length, 1);
    assert.equal(standIn.orders.size, 1, 'one order at Etherfuse');

    // The SPEI payment arrives: a refresh shows the order funded.
    standIn.setOrderStatus(orderId, 'funded');
    assert.equal((await getRamp(user, ramp.txId)).body.content.status, 'processing');
    // Etherfuse delivers (the issuer pays) and says so in a signed order_updated.
    const deliveryHash = await deliverFromIssuer(svc, wallet, usdc, '100');
    standIn.setOrderStatus(orderId, 'completed', { confirmedTxSignature: deliveryHash });
    const hook = await orderWebhook(orderId);
    assert.equal(hook.status, 200, hook.text);
    assert.deepEqual(hook.body, { content: { rampTxId: ramp.txId }, code: 'RAMP_WEBHOOK_RECEIVED', success: true });
    const done = await getRamp(user, ramp.txId);
    assert.equal(done.body.content.status, 'completed');
    assert.equal(done.body.content.stellarTxHash, deliveryHash);
    assert.equal(await assetBalance(svc, wallet, usdc), '100');
    onRamp = { txId: ramp.txId, deliveryHash };
  });

  test("off-ramp 40: paid at start to Etherfuse's anchor account with the order's memo; XLM does not move", async () => {
    const xlmBefore = await xlmStroops(svc, wallet);
    const q = await quoteOk(user, { direction: 'off', asset: usdc, amount: '40' });
    // 40 USDC less 0.2 % (0.08) at 19.96: 796.80 MXN; the fee is 1.59 MXN.
    assert.deepEqual([q.cryptoAmount, q.fiatAmount, q.fee], ['40', '796.80', '1.59']);
    const started = await startRamp(user, q.quoteId);
    assert.equal(started.status, 201, started.text);
    const ramp = started.body.content;
    assert.equal(ramp.status, 'processing');
    const paymentHash = ramp.stellarTxHash as string;
    assert.match(paymentHash, /^[0-9a-f]{64}$/);
    await eventually('the payment is in a ledger', async () => (await assetBalance(svc, wallet, usdc)) === '60');
    assert.equal(await xlmStroops(svc, wallet), xlmBefore, 'the fee was sponsored');
    const orderId = await orderIdOf(ramp.txId);
    const order = standIn.orders.get(orderId)!;
    const created = standIn.requests.filter((r) => r.method === 'POST' && r.path === '/ramp/order').at(-1)!;
    assert.equal((created.body as { useAnchor?: boolean }).useAnchor, true, 'anchor mode');
    const payment = await svc.deps.db('transactions').where({ hash: paymentHash }).first();
    assert.deepEqual([payment.destination, payment.asset, payment.amount], [demoIssuer(svc).publicKey(), usdc, '40']);
    const envelope = TransactionBuilder.fromXDR(payment.envelope_xdr, gatewayOf(svc).networkPassphrase);
    assert.ok(envelope instanceof FeeBumpTransaction, 'wrapped in the gas wallet’s fee-bump');
    const memo = envelope.innerTransaction.memo;
    assert.deepEqual(
      [memo.type, Buffer.from(memo.value as Buffer).toString('hex')],
      ['hash', order.withdrawMemo],
      'the memo Etherfuse matches the payment by',
    );

    // A refresh pays nothing more; Etherfuse sends the MXN and says so.
    assert.equal((await getRamp(user, ramp.txId)).body.content.stellarTxHash, paymentHash);
    standIn.setOrderStatus(orderId, 'completed');
    const hook = await orderWebhook(orderId);
    assert.equal(hook.status, 200, hook.text);
    assert.equal(hook.body.content.rampTxId, ramp.txId);
    const done = await getRamp(user, ramp.txId);
    assert.equal(done.body.content.status, 'completed');
    assert.equal(done.body.content.stellarTxHash, paymentHash, "the off-ramp's hash is the service's payment");
    assert.equal(await assetBalance(svc, wallet, usdc), '60');
    assert.equal(
      (await svc.deps.db('transactions').where({ wallet_id: user.signIn.wallet.walletId, origin: 'built' })).length,
      1,
      'paid once',
    );
    offRamp = { txId: ramp.txId, paymentHash };
  });

  test('history and ramp.updated show each step', async () => {
    assert.ok(onRamp && offRamp, 'the ramps above ran');
    const steps = await awaitRampSteps(user, receiver, { ...onRamp, amount: '100' }, { ...offRamp, amount: '40' });
    assert.deepEqual(steps.on, ['awaiting_deposit', 'processing', 'completed']);
    assert.deepEqual(steps.off, ['processing', 'completed']);
    const last = rampUpdates(receiver, onRamp.txId).at(-1)!.data;
    assert.deepEqual(
      [last.provider, last.direction, last.cryptoAmount, last.fiatAmount, last.fiatCurrency, last.stellarTxHash],
      ['etherfuse', 'on', '100', '2000.00', 'MXN', onRamp.deliveryHash],
    );
    for (const delivery of receiver.received) assert.deepEqual(deliveryProblems(delivery, [secret]), []);
  });
});

describe('Etherfuse refusals through the API', () => {
  let user: UserClient;
  before(async () => {
    user = await onboardedUser();
  });

  test('settings: enabled without the apiKey 422 SDK_RAMPS_PROVIDER_NOT_CONFIGURED; an unknown credential 422 RAMP_SETTINGS_INVALID', async () => {
    const { app: fresh } = await seedCredentials(svc.deps.db);
    const missing = await settingsRefusal(svc, fresh, [
      { providerId: 'etherfuse', enabled: true, assets: [], credentials: { webhookSecret: WEBHOOK_SECRET } },
    ]);
    assert.deepEqual([missing.status, missing.code], [422, 'SDK_RAMPS_PROVIDER_NOT_CONFIGURED']);
    const unknown = await settingsRefusal(svc, app, [
      { providerId: 'etherfuse', enabled: true, assets: [usdc], credentials: { apiKey: API_KEY, secretKey: 'x' } },
    ]);
    assert.deepEqual([unknown.status, unknown.code], [422, 'RAMP_SETTINGS_INVALID']);
    assert.match(String((unknown.details as any).fieldErrors['providers.0.credentials']), /not secretKey/);
    assert.deepEqual(await rampSettingsOf(svc.deps, app), [
      { providerId: 'etherfuse', enabled: true, assets: [usdc], credentialsSet: true },
    ]);
  });

  test('webhooks: a bad signature 401 RAMP_WEBHOOK_SIGNATURE_INVALID (the ramp unchanged); another event 200 null; no key 404', async () => {
    const q = await quoteOk(user, { direction: 'on', asset: usdc, amount: '500', amountIn: 'fiat' });
    const started = await startRamp(user, q.quoteId);
    assert.equal(started.status, 201, started.text);
    const orderId = await orderIdOf(started.body.content.txId);
    standIn.setOrderStatus(orderId, 'canceled');
    const event = standIn.orderEvent(orderId);

    const forged = await postRampWebhook(
      svc,
      'etherfuse',
      app.id,
      standIn.signWebhook(event, randomBytes(32).toString('base64')),
    );
    assert.equal(forged.status, 401, forged.text);
    assert.equal(forged.body.code, 'RAMP_WEBHOOK_SIGNATURE_INVALID');
    const signed = standIn.signWebhook(event);
    const tampered = JSON.parse(signed.rawBody.toString('utf8'));
    tampered.order_updated.status = 'completed';
    const altered = await postRampWebhook(svc, 'etherfuse', app.id, {
      headers: signed.headers,
      rawBody: Buffer.from(JSON.stringify(tampered)),
    });
    assert.equal(altered.status, 401, altered.text);
    const unsigned = await postRampWebhook(svc, 'etherfuse', app.id, {
      headers: { 'content-type': 'application/json' },
      rawBody: signed.rawBody,
    });
    assert.equal(unsigned.status, 401, unsigned.text);
    const row = await svc.deps.db('ramp_transactions').where({ id: started.body.content.txId }).first();
    assert.equal(row.status, 'awaiting_deposit', 'nothing applied');

    const other = await postRampWebhook(
      svc,
      'etherfuse',
      app.id,
      standIn.signWebhook({ kyc_updated: { customerId: 'x', status: 'approved' } }),
    );
    assert.equal(other.status, 200, other.text);
    assert.equal(other.body.content.rampTxId, null);

    // Genuine: the cancelled order fails the ramp.
    const genuine = await postRampWebhook(svc, 'etherfuse', app.id, signed);
    assert.equal(genuine.status, 200, genuine.text);
    assert.equal(genuine.body.content.rampTxId, started.body.content.txId);
    assert.equal((await getRamp(user, started.body.content.txId)).body.content.status, 'failed');

    // An app with Etherfuse but no webhook secret, and an app without Etherfuse: 404.
    const { app: noSecret } = await seedCredentials(svc.deps.db);
    await saveRampProviders(svc, noSecret, [
      { providerId: 'etherfuse', enabled: true, assets: [], credentials: { apiKey: API_KEY } },
    ]);
    const withoutKey = await orderWebhook(orderId, noSecret.id);
    assert.equal(withoutKey.status, 404, withoutKey.text);
    assert.equal(withoutKey.body.code, 'SDK_RAMPS_PROVIDER_NOT_FOUND');
    const { app: none } = await seedCredentials(svc.deps.db);
    const withoutProvider = await orderWebhook(orderId, none.id);
    assert.equal(withoutProvider.status, 404, withoutProvider.text);
    assert.equal(withoutProvider.body.code, 'SDK_RAMPS_PROVIDER_NOT_FOUND');
  });

  test('out of range: 422 with limit, limitAmount and limitCurrency, at both ends and in both directions', async () => {
    const low = await quote(user, { direction: 'on', asset: usdc, amount: '50', amountIn: 'fiat' });
    assert.equal(low.status, 422, low.text);
    assert.equal(low.body.code, 'SDK_RAMPS_AMOUNT_OUT_OF_RANGE');
    assert.deepEqual([low.body.limit, low.body.limitAmount, low.body.limitCurrency], ['min', '100.00', 'MXN']);
    const high = await quote(user, { direction: 'on', asset: usdc, amount: '300000', amountIn: 'fiat' });
    assert.equal(high.status, 422, high.text);
    assert.deepEqual([high.body.limit, high.body.limitAmount, high.body.limitCurrency], ['max', '250000.00', 'MXN']);
    const offLow = await quote(user, { direction: 'off', asset: usdc, amount: '2' });
    assert.equal(offLow.status, 422, offLow.text);
    assert.deepEqual([offLow.body.limit, offLow.body.limitAmount, offLow.body.limitCurrency], ['min', '100.00', 'MXN']);
  });

  test('an expired quote: 410 SDK_RAMPS_QUOTE_EXPIRED, no order created', async () => {
    const q = await quoteOk(user, { direction: 'on', asset: usdc, amount: '500', amountIn: 'fiat' });
    await svc.deps
      .db('ramp_quotes')
      .where({ id: q.quoteId })
      .update({ expires_at: new Date(Date.now() - 1000) });
    const orders = standIn.orders.size;
    const expired = await startRamp(user, q.quoteId);
    assert.equal(expired.status, 410, expired.text);
    assert.equal(expired.body.code, 'SDK_RAMPS_QUOTE_EXPIRED');
    assert.equal(standIn.orders.size, orders);
    assert.equal((await rampRows(q.quoteId)).length, 0);
  });

  test('Etherfuse answers 500: 502 SDK_RAMPS_ETHERFUSE_ERROR, and the same request again succeeds', async () => {
    standIn.failNext(1);
    const failedQuote = await quote(user, { direction: 'on', asset: usdc, amount: '500', amountIn: 'fiat' });
    assert.equal(failedQuote.status, 502, failedQuote.text);
    assert.equal(failedQuote.body.code, 'SDK_RAMPS_ETHERFUSE_ERROR');
    const q = await quoteOk(user, { direction: 'on', asset: usdc, amount: '500', amountIn: 'fiat' });

    standIn.failNext(1);
    const failedStart = await startRamp(user, q.quoteId);
    assert.equal(failedStart.status, 502, failedStart.text);
    assert.equal(failedStart.body.code, 'SDK_RAMPS_ETHERFUSE_ERROR');
    assert.equal((await rampRows(q.quoteId)).length, 0, 'the quote is given back');
    const started = await startRamp(user, q.quoteId);
    assert.equal(started.status, 201, started.text);
    assert.equal(started.body.content.status, 'awaiting_deposit');
  });

  test('two off-ramps the wallet covers once: one is paid, the other rejected on chain (result code), nothing moved', async () => {
    // 30 USDC, two off-ramps of 25 started at once: both pass the balance check, the wallet's transactions land in
    // turn, and the second fails in its ledger (op_underfunded).
    const wallet = user.signIn.wallet.publicKey;
    await deliverFromIssuer(svc, wallet, usdc, '30');
    assert.equal(await assetBalance(svc, wallet, usdc), '30');
    const [a, b] = await Promise.all([
      quoteOk(user, { direction: 'off', asset: usdc, amount: '25' }),
      quoteOk(user, { direction: 'off', asset: usdc, amount: '25' }),
    ]);
    const answers = await Promise.all([startRamp(user, a.quoteId), startRamp(user, b.quoteId)]);
    const ok = answers.filter((r) => r.status === 201);
    const failed = answers.filter((r) => r.status === 422);
    assert.equal(ok.length, 1, answers.map((r) => r.text).join('\n'));
    assert.equal(failed.length, 1);
    assert.equal(failed[0]!.body.code, 'SDK_RAMPS_ONCHAIN_SUBMIT_FAILED');
    assert.match(failed[0]!.body.details.resultCode, /underfunded/);
    await eventually('the one payment is in a ledger', async () => (await assetBalance(svc, wallet, usdc)) === '5');
    const rows = await svc.deps.db('ramp_transactions').whereIn('quote_id', [a.quoteId, b.quoteId]).orderBy('status');
    assert.deepEqual(
      rows.map((r) => r.status),
      ['failed', 'processing'],
    );
    assert.equal(rows[0].failure_code, 'SDK_RAMPS_ONCHAIN_SUBMIT_FAILED');
  });
});
