// Ramps with Bridge (the local stand-in of tests/support/rampStandIns/bridge.ts) for a testnet app, through the SDK API
// on localnet and real PostgreSQL. Bridge settles USDC on Stellar's public network only, so on testnet a ramp never
// starts: an on-ramp stops at its deposit instructions (422 SDK_RAMPS_BRIDGE_TESTNET_NOT_SETTLEABLE carrying them,
// nothing recorded) and an off-ramp is refused before Bridge is asked anything. What can be shown here: the KYC steps
// (terms of service, then identity: 403 with each link), the prices, and Bridge's signed webhooks driving a ramp to
// completion. For the webhooks the ramp is recorded as a mainnet start would have left it (awaiting the deposit of the
// transfer Bridge created), then transfer events move it to processing and to completed with the delivery's hash
// (the demo issuer pays, as Bridge would), the balance moves, and each step is in the history and delivered as
// `ramp.updated`. Then the refusals: settings without the apiKey or with an unknown credential, webhooks with a bad
// or stale signature (401) or for an app without the webhook key (404), an expired quote, out-of-range amounts, and
// Bridge answering 500 (502, then the retry works).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { App } from '../../src/domain/apps/store';
import { newId } from '../../src/domain/ids';
import { rampSettingsOf } from '../../src/domain/ramps/settings';
import { seedCredentials, type SeededCredentials } from '../support/credentials';
import { eventually } from '../support/funding';
import { startBridgeStandIn, type BridgeStandIn } from '../support/rampStandIns/bridge';
import {
  assetBalance,
  deliverFromIssuer,
  demoIssuer,
  fundedRampUser,
  getRamp,
  historyByHash,
  postRampWebhook,
  quoteRamp,
  rampApp,
  rampUpdates,
  saveRampProviders,
  settingsRefusal,
  startRamp,
  type QuoteInput,
  subscribeWebhooks,
} from '../support/ramps';
import { startTestService, type TestService } from '../support/service';
import type { UserClient } from '../support/users';
import { deliveryProblems, startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver';

const API_KEY = `sk-test-${randomBytes(8).toString('hex')}`;
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PUBLIC_KEY_PEM = publicKey.export({ type: 'spki', format: 'pem' }).toString();

let standIn: BridgeStandIn;
let svc: TestService;
let receiver: WebhookReceiver;
let app: App;
let creds: SeededCredentials;
let usdc: string;
let secret: string;

before(async () => {
  standIn = await startBridgeStandIn({ apiKey: API_KEY, webhookPrivateKey: privateKey });
  svc = await startTestService(
    {
      RAMPS_ALLOW_INSECURE: 'on',
      KYC_SANDBOX: 'on',
      RAMPS_SANDBOX: 'on',
      LEDGER_FOLLOWER: 'on',
      WEBHOOK_ALLOW_INSECURE: 'on',
      BRIDGE_API_URL: standIn.url,
    },
    { closeLedgersEveryMs: 200 },
  );
  // Bridge's Stellar side on this network (unused on testnet, where no off-ramp is created): the demo issuer.
  standIn.setDepositAddress(demoIssuer(svc).publicKey());
  standIn.setRate('eur', { midmarket_rate: '0.92', buy_rate: '0.93', sell_rate: '0.91' });
  receiver = await startWebhookReceiver();
  ({ app, creds, usdc } = await rampApp(svc));
  await saveRampProviders(svc, app, [
    {
      providerId: 'bridge',
      enabled: true,
      assets: [usdc],
      credentials: { apiKey: API_KEY, webhookPublicKey: PUBLIC_KEY_PEM },
    },
  ]);
  secret = await subscribeWebhooks(svc, app.id, receiver.url);
});
after(async () => {
  await receiver?.close();
  await svc?.stop();
  await standIn?.close();
});

const quote = (user: UserClient, input: QuoteInput) => quoteRamp(user, { providerId: 'bridge', ...input });

async function quoteOk(user: UserClient, input: QuoteInput) {
  const res = await quote(user, input);
  assert.equal(res.status, 201, res.text);
  return res.body.content;
}

/** A user Bridge has approved (terms of service and KYC). */
async function approvedUser(): Promise<UserClient> {
  const user = await fundedRampUser(svc, creds);
  standIn.setKyc(user.email, { kyc_status: 'approved', tos_status: 'approved' });
  return user;
}

/** Bridge's transfer event for the transfer as it is now, signed and delivered to the app's webhook URL. */
const transferWebhook = (transferId: string, appId = app.id, options: { timestampMs?: number } = {}) =>
  postRampWebhook(svc, 'bridge', appId, standIn.signWebhook(standIn.transferEvent(transferId), options));

const transferPosts = () => standIn.requests.filter((r) => r.method === 'POST' && r.path === '/v0/transfers');
const rampRows = (quoteId: string) => svc.deps.db('ramp_transactions').where({ quote_id: quoteId });

describe('Bridge on a testnet app', () => {
  let user: UserClient;
  let wallet: string;
  before(async () => {
    user = await fundedRampUser(svc, creds);
    wallet = user.signIn.wallet.publicKey;
  });

  test('providers: Bridge offers on and off in USD and EUR for the demo USDC', async () => {
    const res = await user.call('listRampProviders', 'GET', '/v1/ramps/providers');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.content.providers, [
      {
        providerId: 'bridge',
        name: 'Bridge',
        directions: ['on', 'off'],
        fiatCurrencies: ['USD', 'EUR'],
        assets: [usdc],
      },
    ]);
  });

  test("KYC first: 403 SDK_RAMPS_KYC_REQUIRED with Bridge's terms, then its identity check, until both are approved", async () => {
    const tos = await quote(user, { direction: 'on', asset: usdc, amount: '100' });
    assert.equal(tos.status, 403, tos.text);
    assert.equal(tos.body.code, 'SDK_RAMPS_KYC_REQUIRED');
    assert.match(tos.body.kycUrl, /^https:\/\/tos\.bridge-stand-in\.test\/accept-terms-of-service/);
    standIn.setKyc(user.email, { kyc_status: 'under_review', tos_status: 'approved' });
    const kyc = await quote(user, { direction: 'on', asset: usdc, amount: '100' });
    assert.equal(kyc.status, 403, kyc.text);
    assert.match(kyc.body.kycUrl, /^https:\/\/kyc\.bridge-stand-in\.test\/verify/);
    const links = standIn.requests.filter((r) => r.method === 'POST' && r.path === '/v0/kyc_links');
    assert.equal(links.length, 1, 'one KYC link per user');
    standIn.setKyc(user.email, { kyc_status: 'approved' });
    const q = await quoteOk(user, { direction: 'on', asset: usdc, amount: '100' });
    assert.deepEqual(
      [q.fiatAmount, q.cryptoAmount, q.fee, q.minAmount, q.maxAmount, q.fiatCurrency],
      ['100.00', '100', '0.00', '1.00', '10000.00', 'USD'],
    );
    // EUR at Bridge's buy rate (0.93 EUR per USD received).
    const eur = await quoteOk(user, {
      direction: 'on',
      asset: usdc,
      amount: '100',
      amountIn: 'fiat',
      fiatCurrency: 'EUR',
    });
    assert.deepEqual([eur.fiatAmount, eur.cryptoAmount], ['100.00', '107.5268817']);
  });

  test('on-ramp: 422 SDK_RAMPS_BRIDGE_TESTNET_NOT_SETTLEABLE with the deposit instructions; nothing recorded', async () => {
    const q = await quoteOk(user, { direction: 'on', asset: usdc, amount: '100' });
    const posts = transferPosts().length;
    const refused = await startRamp(user, q.quoteId);
    assert.equal(refused.status, 422, refused.text);
    assert.equal(refused.body.code, 'SDK_RAMPS_BRIDGE_TESTNET_NOT_SETTLEABLE');
    const instructions = refused.body.details.depositInstructions;
    assert.deepEqual([instructions.method, instructions.amount, instructions.currency], ['ach', '100.00', 'USD']);
    assert.match(instructions.reference, /^BRG/);
    assert.deepEqual(instructions.details, {
      bankName: 'Stand-in Bank',
      bankAddress: '1 Example St., Kansas City, MO',
      routingNumber: '101019644',
      accountNumber: '900000000001',
      beneficiary: 'Bridge Stand-in Beneficiary',
      beneficiaryAddress: '1 Example Ave, San Francisco, CA',
    });
    assert.equal(transferPosts().length, posts + 1);
    const sent = transferPosts().at(-1)!.body as { amount: string; source: any; destination: any };
    assert.deepEqual(
      [sent.amount, sent.source, sent.destination],
      [
        '100.00',
        { payment_rail: 'ach_push', currency: 'usd' },
        { payment_rail: 'stellar', currency: 'usdc', to_address: wallet },
      ],
    );
    assert.equal((await rampRows(q.quoteId)).length, 0);
    assert.equal(await assetBalance(svc, wallet, usdc), '0');
  });

  test('webhooks drive a recorded on-ramp: funds received -> processing, payment processed -> completed, balance moved', async () => {
    // A ramp as a settleable start leaves it: the transfer Bridge created, awaiting the user's deposit.
    const q = await quoteOk(user, { direction: 'on', asset: usdc, amount: '100' });
    const refused = await startRamp(user, q.quoteId);
    assert.equal(refused.status, 422, refused.text);
    const transferId = [...standIn.transfers.values()].at(-1)!.id;
    const rampTxId = newId('rmt');
    const now = new Date();
    await svc.deps.db('ramp_transactions').insert({
      id: rampTxId,
      app_id: app.id,
      user_id: user.userId,
      wallet_id: user.signIn.wallet.walletId,
      quote_id: q.quoteId,
      provider_id: 'bridge',
      status: 'awaiting_deposit',
      provider_ref: transferId,
      created_at: now,
      updated_at: now,
    });
    const awaiting = await getRamp(user, rampTxId);
    assert.equal(awaiting.status, 200, awaiting.text);
    assert.equal(awaiting.body.content.status, 'awaiting_deposit');
    assert.equal(awaiting.body.content.depositInstructions.method, 'ach');

    standIn.setTransferState(transferId, 'funds_received');
    const received = await transferWebhook(transferId);
    assert.equal(received.status, 200, received.text);
    assert.deepEqual(received.body, { content: { rampTxId }, code: 'RAMP_WEBHOOK_RECEIVED', success: true });
    assert.equal((await svc.deps.db('ramp_transactions').where({ id: rampTxId }).first()).status, 'processing');

    // Bridge delivers (the issuer pays) and reports the destination hash.
    const deliveryHash = await deliverFromIssuer(svc, wallet, usdc, '100');
    standIn.setTransferState(transferId, 'payment_processed', { destination_tx_hash: deliveryHash });
    const processed = await transferWebhook(transferId);
    assert.equal(processed.status, 200, processed.text);
    assert.equal(processed.body.content.rampTxId, rampTxId);
    const done = await getRamp(user, rampTxId);
    assert.equal(done.body.content.status, 'completed');
    assert.equal(done.body.content.stellarTxHash, deliveryHash);
    assert.equal(await assetBalance(svc, wallet, usdc), '100');
    // The same event again changes nothing.
    assert.equal((await transferWebhook(transferId)).status, 200);
    assert.equal((await getRamp(user, rampTxId)).body.content.status, 'completed');

    await eventually(
      'the delivery is in the history',
      async () => (await historyByHash(user)).get(deliveryHash)?.status === 'SUCCESS',
      30_000,
    );
    assert.match((await historyByHash(user)).get(deliveryHash)!.summary, /100 USDC/);
    await eventually(
      'ramp.updated delivered for each step',
      async () => rampUpdates(receiver, rampTxId).at(-1)?.status === 'completed',
      30_000,
    );
    assert.deepEqual(
      rampUpdates(receiver, rampTxId).map((u) => u.status),
      ['processing', 'completed'],
    );
    const last = rampUpdates(receiver, rampTxId).at(-1)!.data;
    assert.deepEqual([last.provider, last.direction, last.stellarTxHash], ['bridge', 'on', deliveryHash]);
    for (const delivery of receiver.received) assert.deepEqual(deliveryProblems(delivery, [secret]), []);
  });

  test('off-ramp: 422 SDK_RAMPS_BRIDGE_TESTNET_NOT_SETTLEABLE before Bridge is asked; nothing recorded or paid', async () => {
    assert.equal(await assetBalance(svc, wallet, usdc), '100', 'the on-ramp above delivered');
    const q = await quoteOk(user, { direction: 'off', asset: usdc, amount: '40' });
    assert.deepEqual([q.cryptoAmount, q.fiatAmount, q.fee], ['40', '40.00', '0.00']);
    const posts = transferPosts().length;
    const refused = await startRamp(user, q.quoteId);
    assert.equal(refused.status, 422, refused.text);
    assert.equal(refused.body.code, 'SDK_RAMPS_BRIDGE_TESTNET_NOT_SETTLEABLE');
    assert.equal(refused.body.details, undefined);
    assert.equal(transferPosts().length, posts, 'no transfer created');
    assert.equal((await rampRows(q.quoteId)).length, 0);
    assert.equal(await assetBalance(svc, wallet, usdc), '100');
    assert.equal(
      (await svc.deps.db('transactions').where({ wallet_id: user.signIn.wallet.walletId, origin: 'built' })).length,
      0,
      'nothing paid',
    );
  });
});

describe('Bridge refusals through the API', () => {
  let user: UserClient;
  before(async () => {
    user = await approvedUser();
  });

  test('settings: enabled without the apiKey 422 SDK_RAMPS_PROVIDER_NOT_CONFIGURED; an unknown credential 422 RAMP_SETTINGS_INVALID', async () => {
    const { app: fresh } = await seedCredentials(svc.deps.db);
    const missing = await settingsRefusal(svc, fresh, [
      { providerId: 'bridge', enabled: true, assets: [], credentials: { webhookPublicKey: PUBLIC_KEY_PEM } },
    ]);
    assert.deepEqual([missing.status, missing.code], [422, 'SDK_RAMPS_PROVIDER_NOT_CONFIGURED']);
    const unknown = await settingsRefusal(svc, app, [
      { providerId: 'bridge', enabled: true, assets: [usdc], credentials: { apiKey: API_KEY, webhookSecret: 'x' } },
    ]);
    assert.deepEqual([unknown.status, unknown.code], [422, 'RAMP_SETTINGS_INVALID']);
    assert.match(String((unknown.details as any).fieldErrors['providers.0.credentials']), /not webhookSecret/);
    assert.deepEqual(await rampSettingsOf(svc.deps, app), [
      { providerId: 'bridge', enabled: true, assets: [usdc], credentialsSet: true },
    ]);
  });

  test('webhooks: 401 RAMP_WEBHOOK_SIGNATURE_INVALID for another key, a stale or missing signature, an altered body; 404 without the key', async () => {
    const transferId = [...standIn.transfers.values()][0]!.id;
    const event = standIn.transferEvent(transferId);
    const { privateKey: otherKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const forged = await postRampWebhook(svc, 'bridge', app.id, standIn.signWebhook(event, { privateKey: otherKey }));
    assert.equal(forged.status, 401, forged.text);
    assert.equal(forged.body.code, 'RAMP_WEBHOOK_SIGNATURE_INVALID');
    const stale = await transferWebhook(transferId, app.id, { timestampMs: Date.now() - 11 * 60_000 });
    assert.equal(stale.status, 401, stale.text);
    assert.equal(stale.body.code, 'RAMP_WEBHOOK_SIGNATURE_INVALID');
    const signed = standIn.signWebhook(event);
    const altered = await postRampWebhook(svc, 'bridge', app.id, {
      headers: signed.headers,
      rawBody: Buffer.from(signed.rawBody.toString('utf8').replace('"state":"', '"state":"x')),
    });
    assert.equal(altered.status, 401, altered.text);
    const unsigned = await postRampWebhook(svc, 'bridge', app.id, {
      headers: { 'content-type': 'application/json' },
      rawBody: signed.rawBody,
    });
    assert.equal(unsigned.status, 401, unsigned.text);

    // Verified, about no ramp of the app: acknowledged and ignored.
    const other = await postRampWebhook(
      svc,
      'bridge',
      app.id,
      standIn.signWebhook({ ...event, event_category: 'customer', event_object: { id: 'cust_x' } }),
    );
    assert.equal(other.status, 200, other.text);
    assert.equal(other.body.content.rampTxId, null);

    // An app with Bridge but no webhook key, and an app without Bridge: 404.
    const { app: noKey } = await seedCredentials(svc.deps.db);
    await saveRampProviders(svc, noKey, [
      { providerId: 'bridge', enabled: true, assets: [], credentials: { apiKey: API_KEY } },
    ]);
    const withoutKey = await transferWebhook(transferId, noKey.id);
    assert.equal(withoutKey.status, 404, withoutKey.text);
    assert.equal(withoutKey.body.code, 'SDK_RAMPS_PROVIDER_NOT_FOUND');
    const { app: none } = await seedCredentials(svc.deps.db);
    const withoutProvider = await transferWebhook(transferId, none.id);
    assert.equal(withoutProvider.status, 404, withoutProvider.text);
    assert.equal(withoutProvider.body.code, 'SDK_RAMPS_PROVIDER_NOT_FOUND');
  });

  test('out of range: 422 with limit, limitAmount and limitCurrency, at both ends and in both directions', async () => {
    const low = await quote(user, { direction: 'on', asset: usdc, amount: '0.5', amountIn: 'fiat' });
    assert.equal(low.status, 422, low.text);
    assert.equal(low.body.code, 'SDK_RAMPS_AMOUNT_OUT_OF_RANGE');
    assert.deepEqual([low.body.limit, low.body.limitAmount, low.body.limitCurrency], ['min', '1.00', 'USD']);
    const high = await quote(user, { direction: 'on', asset: usdc, amount: '20000', amountIn: 'fiat' });
    assert.equal(high.status, 422, high.text);
    assert.deepEqual([high.body.limit, high.body.limitAmount, high.body.limitCurrency], ['max', '10000.00', 'USD']);
    const eurHigh = await quote(user, { direction: 'off', asset: usdc, amount: '20000', fiatCurrency: 'EUR' });
    assert.equal(eurHigh.status, 422, eurHigh.text);
    assert.deepEqual(
      [eurHigh.body.limit, eurHigh.body.limitAmount, eurHigh.body.limitCurrency],
      ['max', '10000.00', 'EUR'],
    );
  });

  test('an expired quote: 410 SDK_RAMPS_QUOTE_EXPIRED, nothing asked of Bridge', async () => {
    const q = await quoteOk(user, { direction: 'on', asset: usdc, amount: '50' });
    await svc.deps
      .db('ramp_quotes')
      .where({ id: q.quoteId })
      .update({ expires_at: new Date(Date.now() - 1000) });
    const requests = standIn.requests.length;
    const expired = await startRamp(user, q.quoteId);
    assert.equal(expired.status, 410, expired.text);
    assert.equal(expired.body.code, 'SDK_RAMPS_QUOTE_EXPIRED');
    assert.equal(standIn.requests.length, requests);
  });

  test('Bridge answers 500: 502 SDK_RAMPS_BRIDGE_ERROR, and the same request again gets through', async () => {
    standIn.failNext(1);
    const failedQuote = await quote(user, { direction: 'on', asset: usdc, amount: '50' });
    assert.equal(failedQuote.status, 502, failedQuote.text);
    assert.equal(failedQuote.body.code, 'SDK_RAMPS_BRIDGE_ERROR');
    const q = await quoteOk(user, { direction: 'on', asset: usdc, amount: '50' });

    standIn.failNext(1);
    const failedStart = await startRamp(user, q.quoteId);
    assert.equal(failedStart.status, 502, failedStart.text);
    assert.equal(failedStart.body.code, 'SDK_RAMPS_BRIDGE_ERROR');
    assert.equal((await rampRows(q.quoteId)).length, 0, 'the quote is given back');
    // The quote is still usable: the retry reaches Bridge and gets as far as a testnet start can.
    const retried = await startRamp(user, q.quoteId);
    assert.equal(retried.status, 422, retried.text);
    assert.equal(retried.body.code, 'SDK_RAMPS_BRIDGE_TESTNET_NOT_SETTLEABLE');
    assert.equal(retried.body.details.depositInstructions.amount, '50.00');
  });
});
