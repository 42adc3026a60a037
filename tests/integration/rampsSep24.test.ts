// Ramps with a SEP-24 anchor (the local anchor of tests/support/rampStandIns/anchor.ts, whose Stellar side is the
// demo USDC issuer), end to end through the SDK API on localnet and real PostgreSQL. A user starts an on-ramp of 100
// USDC: the ramp is `pending_kyc` with the anchor's interactive URL (SEP-10 sign-in and SEP-12 done by the service);
// the user completes the anchor's page, a refresh shows the deposit instructions, the anchor delivers (the issuer pays,
// the anchor reports the hash) and the ramp completes with the balance moved. An off-ramp of 40: after the interactive
// page the anchor asks for the asset, the next refresh pays it from the custodial wallet to the anchor's account with
// its memo (fee-bumped by the gas wallet: the user's XLM does not move), and the anchor completes it. Each step is in
// the wallet's history and delivered as `ramp.updated`. Then the refusals: settings without an anchorDomain or with
// an unknown credential, an expired quote, out-of-range amounts, an anchor answering 500 (502, then the retry works),
// a refresh whose payment the wallet cannot cover (the ramp fails, nothing moves), and an external wallet (the
// service cannot sign the anchor's SEP-10 challenge for it).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FeeBumpTransaction, TransactionBuilder } from '@stellar/stellar-sdk';
import { SYSTEM_ACTOR } from '../../src/domain/audit/auditLog';
import type { App } from '../../src/domain/apps/store';
import { rampSettingsOf, updateRampSettings } from '../../src/domain/ramps/settings';
import { seedCredentials, type SeededCredentials } from '../support/credentials';
import { eventually, gatewayOf } from '../support/funding';
import { startLocalAnchor, type LocalAnchor } from '../support/rampStandIns/anchor';
import {
  awaitRampSteps,
  assetBalance,
  deliverFromIssuer,
  demoIssuer,
  externalWalletUser,
  fundedRampUser,
  getRamp,
  quoteRamp,
  rampApp,
  rampUpdates,
  settingsRefusal,
  startRamp,
  xlmStroops,
  type QuoteInput,
  subscribeWebhooks,
} from '../support/ramps';
import { startTestService, type TestService } from '../support/service';
import type { UserClient } from '../support/users';
import { deliveryProblems, startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver';

let svc: TestService;
let anchor: LocalAnchor;
let receiver: WebhookReceiver;
let app: App;
let creds: SeededCredentials;
let usdc: string;
let secret: string;

before(async () => {
  // The anchor takes the demo issuer, which the service derives: the service first (the anchor's URL is a credential).
  svc = await startTestService(
    {
      RAMPS_ALLOW_INSECURE: 'on',
      KYC_SANDBOX: 'on',
      RAMPS_SANDBOX: 'on',
      LEDGER_FOLLOWER: 'on',
      WEBHOOK_ALLOW_INSECURE: 'on',
    },
    { closeLedgersEveryMs: 200 },
  );
  const issuer = demoIssuer(svc).publicKey();
  // Withdrawals are paid to the issuer, which burns them: no trustline needed.
  anchor = await startLocalAnchor({ issuer, distributionAccount: issuer });
  receiver = await startWebhookReceiver();
  ({ app, creds, usdc } = await rampApp(svc));
  assert.equal(anchor.asset('USDC'), usdc, "the anchor's USDC is the app's demo USDC");
  await updateRampSettings(
    svc.deps,
    app,
    {
      providers: [{ providerId: 'sep24', enabled: true, assets: [usdc], credentials: { anchorDomain: anchor.domain } }],
    },
    { actor: SYSTEM_ACTOR, at: new Date() },
  );
  secret = await subscribeWebhooks(svc, app.id, receiver.url);
});
after(async () => {
  await receiver?.close();
  await anchor?.close();
  await svc?.stop();
});

const quote = (user: UserClient, input: QuoteInput) => quoteRamp(user, { providerId: 'sep24', ...input });

async function quoteOk(user: UserClient, input: QuoteInput) {
  const res = await quote(user, input);
  assert.equal(res.status, 201, res.text);
  return res.body.content;
}

/** The anchor's transaction id of a ramp (its providerRef). */
async function anchorIdOf(rampTxId: string): Promise<string> {
  const row = await svc.deps.db('ramp_transactions').where({ id: rampTxId }).first('provider_ref');
  assert.ok(row?.provider_ref, `ramp ${rampTxId} has an anchor transaction`);
  return row.provider_ref as string;
}

/** The user completes the anchor's interactive page (identity, bank details) as a browser posts its form. */
async function completeInteractive(kycUrl: string): Promise<void> {
  const url = new URL(kycUrl);
  assert.equal(url.origin, anchor.url, 'the kycUrl is the anchor’s page');
  const page = await fetch(kycUrl);
  assert.equal(page.status, 200);
  const posted = await fetch(`${url.origin}${url.pathname}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: url.searchParams.get('token') ?? '' }).toString(),
  });
  assert.equal(posted.status, 200, await posted.text());
}

const rampRows = (quoteId: string) => svc.deps.db('ramp_transactions').where({ quote_id: quoteId });

describe('the SEP-24 anchor, end to end', () => {
  let user: UserClient;
  let wallet: string;
  let onRamp: { txId: string; deliveryHash: string };
  let offRamp: { txId: string; paymentHash: string };
  before(async () => {
    user = await fundedRampUser(svc, creds);
    wallet = user.signIn.wallet.publicKey;
  });

  test('providers: the anchor offers deposits and withdrawals in USD for the demo USDC', async () => {
    const res = await user.call('listRampProviders', 'GET', '/v1/ramps/providers');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.content.providers, [
      {
        providerId: 'sep24',
        name: 'SEP-24 anchor',
        directions: ['on', 'off'],
        fiatCurrencies: ['USD'],
        assets: [usdc],
      },
    ]);
  });

  test("on-ramp 100 USDC: the anchor's interactive flow first, then deposit instructions; the anchor delivers", async () => {
    const q = await quoteOk(user, { direction: 'on', asset: usdc, amount: '100' });
    // /info: fee 1 + 1.5 %, from 10 to 1000: 102.54 paid in leaves 100 once the 2.54 fee is taken.
    assert.deepEqual(
      [q.fiatAmount, q.cryptoAmount, q.fee, q.minAmount, q.maxAmount, q.fiatCurrency],
      ['102.54', '100', '2.54', '10', '1000', 'USD'],
    );

    // 1. started: the anchor's interactive page is where the user identifies (SEP-24's KYC), idempotent by quote
    const started = await startRamp(user, q.quoteId);
    assert.equal(started.status, 201, started.text);
    const ramp = started.body.content;
    assert.equal(ramp.status, 'pending_kyc');
    assert.equal(ramp.provider, 'sep24');
    assert.match(ramp.kycUrl, /\/sep24\/interactive\?token=/);
    assert.equal(ramp.stellarTxHash, null);
    const again = await startRamp(user, q.quoteId);
    assert.equal(again.status, 201, again.text);
    assert.equal(again.body.content.txId, ramp.txId, 'the same quote is the same ramp');
    assert.equal((await rampRows(q.quoteId)).length, 1);
    const anchorId = await anchorIdOf(ramp.txId);
    const tx = anchor.transactions.get(anchorId)!;
    assert.deepEqual([tx.kind, tx.status, tx.owner], ['deposit', 'incomplete', wallet], 'SEP-10 as the wallet');
    assert.equal(tx.fields.amount_in, '102.54', 'SEP-24 amount: the fiat the anchor receives');
    assert.equal(anchor.customers.get(wallet)?.email_address, user.email, 'SEP-12: the email shared');

    // 2. the user completes the page: the next refresh shows how to pay
    await completeInteractive(ramp.kycUrl);
    const awaiting = await getRamp(user, ramp.txId);
    assert.equal(awaiting.status, 200, awaiting.text);
    assert.equal(awaiting.body.content.status, 'awaiting_deposit');
    assert.equal(awaiting.body.content.kycUrl, undefined);
    const instructions = awaiting.body.content.depositInstructions;
    assert.deepEqual(
      [instructions.method, instructions.amount, instructions.currency, instructions.reference],
      ['other', '102.54', 'USD', anchorId],
    );
    assert.equal(instructions.details['organization.bank_number'], '121122676');
    assert.match(instructions.details.moreInfoUrl, /\/sep24\/more_info\?id=/);

    // 3. the anchor receives the fiat, then delivers the asset (the issuer pays) and reports the hash
    anchor.setStatus(anchorId, 'pending_anchor');
    assert.equal((await getRamp(user, ramp.txId)).body.content.status, 'processing');
    assert.equal(await assetBalance(svc, wallet, usdc), '0');
    const deliveryHash = await deliverFromIssuer(svc, wallet, usdc, '100');
    anchor.setStatus(anchorId, 'completed', { stellar_transaction_id: deliveryHash, amount_out: '100' });
    const done = await getRamp(user, ramp.txId);
    assert.equal(done.status, 200, done.text);
    assert.equal(done.body.content.status, 'completed');
    assert.equal(done.body.content.stellarTxHash, deliveryHash);
    assert.equal(await assetBalance(svc, wallet, usdc), '100');
    onRamp = { txId: ramp.txId, deliveryHash };
  });

  test("off-ramp 40: after the anchor's page, a refresh pays the anchor's account with its memo; XLM does not move", async () => {
    const xlmBefore = await xlmStroops(svc, wallet);
    const q = await quoteOk(user, { direction: 'off', asset: usdc, amount: '40' });
    assert.deepEqual([q.cryptoAmount, q.fiatAmount, q.fee], ['40', '39.5', '0.5']);
    const started = await startRamp(user, q.quoteId);
    assert.equal(started.status, 201, started.text);
    const ramp = started.body.content;
    assert.equal(ramp.status, 'pending_kyc');
    assert.equal(await assetBalance(svc, wallet, usdc), '100', 'nothing is paid before the anchor asks');
    const anchorId = await anchorIdOf(ramp.txId);
    assert.equal(anchor.transactions.get(anchorId)!.fields.amount_in, '40');

    // The page done, the anchor asks for the asset: the refresh pays it (once), from the wallet, fee-bumped.
    await completeInteractive(ramp.kycUrl);
    const paying = await getRamp(user, ramp.txId);
    assert.equal(paying.status, 200, paying.text);
    assert.equal(paying.body.content.status, 'processing');
    const paymentHash = paying.body.content.stellarTxHash as string;
    assert.match(paymentHash, /^[0-9a-f]{64}$/);
    await eventually('the payment is in a ledger', async () => (await assetBalance(svc, wallet, usdc)) === '60');
    const payment = await svc.deps.db('transactions').where({ hash: paymentHash }).first();
    assert.deepEqual([payment.destination, payment.asset, payment.amount], [anchor.distributionAccount, usdc, '40']);
    const envelope = TransactionBuilder.fromXDR(payment.envelope_xdr, gatewayOf(svc).networkPassphrase);
    assert.ok(envelope instanceof FeeBumpTransaction, 'wrapped in the gas wallet’s fee-bump');
    assert.notEqual(envelope.feeSource, wallet);
    const memo = envelope.innerTransaction.memo;
    assert.deepEqual(
      [memo.type, memo.value],
      ['id', anchor.transactions.get(anchorId)!.fields.withdraw_memo],
      'the memo the anchor matches the payment by',
    );
    assert.equal(await xlmStroops(svc, wallet), xlmBefore, 'the fee was sponsored');
    // Another refresh pays nothing more.
    assert.equal((await getRamp(user, ramp.txId)).body.content.stellarTxHash, paymentHash);
    assert.equal(
      (await svc.deps.db('transactions').where({ wallet_id: user.signIn.wallet.walletId, origin: 'built' })).length,
      1,
    );

    anchor.setStatus(anchorId, 'completed');
    const done = await getRamp(user, ramp.txId);
    assert.equal(done.body.content.status, 'completed');
    assert.equal(done.body.content.stellarTxHash, paymentHash, "the off-ramp's hash is the service's payment");
    assert.equal(await assetBalance(svc, wallet, usdc), '60');
    offRamp = { txId: ramp.txId, paymentHash };
  });

  test('history and ramp.updated show each step', async () => {
    assert.ok(onRamp && offRamp, 'the ramps above ran');
    const steps = await awaitRampSteps(user, receiver, { ...onRamp, amount: '100' }, { ...offRamp, amount: '40' });
    assert.deepEqual(steps.on, ['pending_kyc', 'awaiting_deposit', 'processing', 'completed']);
    assert.deepEqual(steps.off, ['pending_kyc', 'processing', 'completed']);
    const last = rampUpdates(receiver, onRamp.txId).at(-1)!.data;
    assert.deepEqual(
      [last.provider, last.direction, last.cryptoAmount, last.stellarTxHash],
      ['sep24', 'on', '100', onRamp.deliveryHash],
    );
    for (const delivery of receiver.received) assert.deepEqual(deliveryProblems(delivery, [secret]), []);
  });
});

describe('SEP-24 refusals through the API', () => {
  let user: UserClient;
  before(async () => {
    user = await fundedRampUser(svc, creds);
  });

  test('settings: enabled without an anchorDomain 422 SDK_RAMPS_PROVIDER_NOT_CONFIGURED; an unknown credential 422 RAMP_SETTINGS_INVALID', async () => {
    const { app: fresh } = await seedCredentials(svc.deps.db);
    const missing = await settingsRefusal(svc, fresh, [{ providerId: 'sep24', enabled: true, assets: [] }]);
    assert.deepEqual([missing.status, missing.code], [422, 'SDK_RAMPS_PROVIDER_NOT_CONFIGURED']);
    const empty = await settingsRefusal(svc, app, [
      { providerId: 'sep24', enabled: true, assets: [usdc], credentials: { anchorDomain: '' } },
    ]);
    assert.deepEqual([empty.status, empty.code], [422, 'SDK_RAMPS_PROVIDER_NOT_CONFIGURED']);
    const unknown = await settingsRefusal(svc, app, [
      { providerId: 'sep24', enabled: true, assets: [usdc], credentials: { anchorDomain: anchor.domain, apiKey: 'x' } },
    ]);
    assert.deepEqual([unknown.status, unknown.code], [422, 'RAMP_SETTINGS_INVALID']);
    assert.match(String((unknown.details as any).fieldErrors['providers.0.credentials']), /not apiKey/);
    assert.deepEqual(await rampSettingsOf(svc.deps, app), [
      { providerId: 'sep24', enabled: true, assets: [usdc], credentialsSet: true },
    ]);
  });

  test('out of range: 422 with limit, limitAmount and limitCurrency, at both ends and in both directions', async () => {
    const low = await quote(user, { direction: 'on', asset: usdc, amount: '5', amountIn: 'fiat' });
    assert.equal(low.status, 422, low.text);
    assert.equal(low.body.code, 'SDK_RAMPS_AMOUNT_OUT_OF_RANGE');
    assert.deepEqual([low.body.limit, low.body.limitAmount, low.body.limitCurrency], ['min', '10', 'USD']);
    const high = await quote(user, { direction: 'on', asset: usdc, amount: '2000', amountIn: 'fiat' });
    assert.equal(high.status, 422, high.text);
    assert.deepEqual([high.body.limit, high.body.limitAmount, high.body.limitCurrency], ['max', '1000', 'USD']);
    const offHigh = await quote(user, { direction: 'off', asset: usdc, amount: '600' });
    assert.equal(offHigh.status, 422, offHigh.text);
    assert.deepEqual([offHigh.body.limit, offHigh.body.limitAmount], ['max', '500']);
  });

  test('an expired quote: 410 SDK_RAMPS_QUOTE_EXPIRED, nothing asked of the anchor', async () => {
    const q = await quoteOk(user, { direction: 'on', asset: usdc, amount: '50' });
    await svc.deps
      .db('ramp_quotes')
      .where({ id: q.quoteId })
      .update({ expires_at: new Date(Date.now() - 1000) });
    const before = anchor.requests.length;
    const expired = await startRamp(user, q.quoteId);
    assert.equal(expired.status, 410, expired.text);
    assert.equal(expired.body.code, 'SDK_RAMPS_QUOTE_EXPIRED');
    assert.equal(anchor.requests.length, before);
    assert.equal((await rampRows(q.quoteId)).length, 0);
  });

  test('the anchor answers 500: 502 SDK_RAMPS_ANCHOR_ERROR, and the same request again succeeds', async () => {
    anchor.failNext(1);
    const failedQuote = await quote(user, { direction: 'on', asset: usdc, amount: '50' });
    assert.equal(failedQuote.status, 502, failedQuote.text);
    assert.equal(failedQuote.body.code, 'SDK_RAMPS_ANCHOR_ERROR');
    const q = await quoteOk(user, { direction: 'on', asset: usdc, amount: '50' });

    anchor.failNext(1);
    const failedStart = await startRamp(user, q.quoteId);
    assert.equal(failedStart.status, 502, failedStart.text);
    assert.equal(failedStart.body.code, 'SDK_RAMPS_ANCHOR_ERROR');
    assert.equal((await rampRows(q.quoteId)).length, 0, 'the quote is given back');
    const started = await startRamp(user, q.quoteId);
    assert.equal(started.status, 201, started.text);
    assert.equal(started.body.content.status, 'pending_kyc');

    // A refresh while the anchor fails is not the user's error: the stored state is answered.
    anchor.failNext(1);
    const refreshed = await getRamp(user, started.body.content.txId);
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.equal(refreshed.body.content.status, 'pending_kyc');
  });

  test('a refresh whose payment the wallet cannot cover: that ramp fails, the balance moves once', async () => {
    // 30 USDC, two withdrawals of 25 started (each covered when started), both pages completed: the anchor asks for
    // both payments, and two refreshes at once can only pay one of them.
    const wallet = user.signIn.wallet.publicKey;
    await deliverFromIssuer(svc, wallet, usdc, '30');
    assert.equal(await assetBalance(svc, wallet, usdc), '30');
    const ramps = [];
    for (let i = 0; i < 2; i++) {
      const q = await quoteOk(user, { direction: 'off', asset: usdc, amount: '25' });
      const started = await startRamp(user, q.quoteId);
      assert.equal(started.status, 201, started.text);
      ramps.push(started.body.content);
    }
    for (const r of ramps) await completeInteractive(r.kycUrl);
    const answers = await Promise.all(ramps.map((r) => getRamp(user, r.txId)));
    for (const a of answers) assert.equal(a.status, 200, a.text);
    const byStatus = new Map(answers.map((a) => [a.body.content.status as string, a.body.content]));
    assert.deepEqual([...byStatus.keys()].sort(), ['failed', 'processing'], answers.map((a) => a.text).join('\n'));
    assert.match(byStatus.get('processing')!.stellarTxHash, /^[0-9a-f]{64}$/);
    await eventually('the one payment is in a ledger', async () => (await assetBalance(svc, wallet, usdc)) === '5');
    const failed = await svc.deps
      .db('ramp_transactions')
      .where({ id: byStatus.get('failed')!.txId })
      .first();
    // Refused by the balance check, or (both checks passed) by the network: op_underfunded, nothing moved.
    assert.ok(
      ['SDK_RAMPS_INSUFFICIENT_BALANCE', 'SDK_RAMPS_ONCHAIN_SUBMIT_FAILED'].includes(failed.failure_code),
      failed.failure_code,
    );
    if (failed.failure_code === 'SDK_RAMPS_ONCHAIN_SUBMIT_FAILED') assert.match(failed.failure_reason, /underfunded/);
    // Failed is final: a later refresh pays nothing.
    assert.equal((await getRamp(user, failed.id)).body.content.status, 'failed');
    assert.equal(await assetBalance(svc, wallet, usdc), '5');
  });

  test('an external wallet: 422 SDK_RAMPS_WALLET_UNSUPPORTED (the service cannot sign SEP-10 for it), nothing kept', async () => {
    const { client: external } = await externalWalletUser(svc, creds, app.id);
    assert.equal(external.signIn.wallet.custody, 'external');
    const q = await quoteOk(external, { direction: 'on', asset: usdc, amount: '50' });
    const refused = await startRamp(external, q.quoteId);
    assert.equal(refused.status, 422, refused.text);
    assert.equal(refused.body.code, 'SDK_RAMPS_WALLET_UNSUPPORTED');
    assert.equal((await rampRows(q.quoteId)).length, 0);
    const account = external.signIn.wallet.publicKey as string;
    assert.equal(
      [...anchor.transactions.values()].filter((t) => t.owner === account).length,
      0,
      'nothing started at the anchor',
    );
  });
});
