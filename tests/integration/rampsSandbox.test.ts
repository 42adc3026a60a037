// Ramps with the sandbox provider, end to end on localnet and real PostgreSQL: a user passes KYC, on-ramps 100 USDC
// (the developer confirms the deposit on the sandbox page; the issuer delivers; the balance moves), off-ramps 40 (the
// service pays from the custodial wallet, fee-bumped by the gas wallet: the user's XLM does not move), and each step is
// in the wallet's history and delivered as signed webhooks. Then the refusals of the contract, each through the API.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { followOpenRamps } from '../../src/domain/ramps/transactions';
import type { App } from '../../src/domain/apps/store';
import type { SeededCredentials } from '../support/credentials';
import { eventually } from '../support/funding';
import { decideSandboxKyc } from '../support/kyc';
import {
  assetBalance,
  confirmSandboxDeposit,
  fundedRampUser,
  getRamp,
  quoteOk,
  quoteRamp,
  rampApp,
  startRamp,
  xlmStroops,
  subscribeWebhooks,
} from '../support/ramps';
import { startTestService, type TestService } from '../support/service';
import type { UserClient } from '../support/users';
import { deliveryProblems, startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver';

let svc: TestService;
let receiver: WebhookReceiver;
let app: App;
let creds: SeededCredentials;
let usdc: string;
let secret: string;

before(async () => {
  svc = await startTestService(
    { KYC_SANDBOX: 'on', RAMPS_SANDBOX: 'on', LEDGER_FOLLOWER: 'on', WEBHOOK_ALLOW_INSECURE: 'on' },
    { closeLedgersEveryMs: 200 },
  );
  receiver = await startWebhookReceiver();
  ({ app, creds, usdc } = await rampApp(svc));
  secret = await subscribeWebhooks(svc, app.id, receiver.url, ['ramp.updated', 'payment.received', 'payment.sent']);
});
after(async () => {
  await receiver?.close();
  await svc?.stop();
});

const bodies = () => receiver.received.map((d) => JSON.parse(d.body) as { event: string; data: any });

describe('the sandbox ramp, end to end', () => {
  let user: UserClient;
  let wallet: string;
  before(async () => {
    user = await fundedRampUser(svc, creds);
    wallet = user.signIn.wallet.publicKey;
  });

  test('providers: the sandbox offers on and off in USD for the demo USDC', async () => {
    const res = await user.call('listRampProviders', 'GET', '/v1/ramps/providers');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.content.providers, [
      {
        providerId: 'sandbox',
        name: 'Sandbox (development)',
        directions: ['on', 'off'],
        fiatCurrencies: ['USD'],
        assets: [usdc],
      },
    ]);
  });

  test('KYC first, then on-ramp 100 USDC: deposit instructions, the page confirms, the balance moves', async () => {
    const quote = await quoteOk(user, { direction: 'on', asset: usdc, amount: '100' });
    assert.equal(quote.cryptoAmount, '100');
    assert.equal(quote.fee, '0.75');
    assert.equal(quote.fiatAmount, '100.75');
    assert.equal(quote.minAmount, '20');
    assert.equal(quote.maxAmount, '10000');
    const validMs = Date.parse(quote.expiresAt) - Date.now();
    assert.ok(validMs > 14 * 60_000 && validMs <= 15 * 60_000, `valid for 15 minutes (${validMs} ms)`);

    // 1. no identity yet: 403 with where to verify; the quote is still usable afterwards
    const refused = await startRamp(user, quote.quoteId);
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.code, 'SDK_RAMPS_KYC_REQUIRED');
    assert.match(refused.body.kycUrl, /\/sandbox\/kyc\/kys_/);
    await decideSandboxKyc(refused.body.kycUrl, 'approved');

    // 2. started: awaiting the deposit, idempotent by quote
    const started = await startRamp(user, quote.quoteId);
    assert.equal(started.status, 201, started.text);
    const ramp = started.body.content;
    assert.equal(ramp.status, 'awaiting_deposit');
    assert.equal(ramp.provider, 'sandbox');
    assert.equal(ramp.depositInstructions.amount, '100.75');
    assert.equal(ramp.depositInstructions.currency, 'USD');
    assert.equal(ramp.stellarTxHash, null);
    const again = await startRamp(user, quote.quoteId);
    assert.equal(again.status, 201);
    assert.equal(again.body.content.txId, ramp.txId, 'the same quote is the same ramp');
    assert.equal(
      await svc.deps
        .db('ramp_transactions')
        .where({ quote_id: quote.quoteId })
        .count({ n: '*' })
        .first()
        .then((r) => Number(r!.n)),
      1,
    );

    // 3. the developer confirms the deposit: the fiat ledger has it, the wallet has the USDC
    const page = await fetch(ramp.depositInstructions.details.confirmDepositAt);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /Confirm the deposit/);
    const confirmed = await confirmSandboxDeposit(ramp.depositInstructions.details.confirmDepositAt);
    assert.equal(confirmed.status, 200, await confirmed.text());
    const done = await getRamp(user, ramp.txId);
    assert.equal(done.status, 200, done.text);
    assert.equal(done.body.content.status, 'completed');
    assert.match(done.body.content.stellarTxHash, /^[0-9a-f]{64}$/);
    assert.equal(await assetBalance(svc, wallet, usdc), '100');
    const fiat = await svc.deps.db('sandbox_fiat_ledger').where({ ramp_tx_id: ramp.txId });
    assert.deepEqual(
      fiat.map((f) => [f.kind, f.amount, f.currency]),
      [['deposit', '100.75', 'USD']],
    );
    // Confirming again pays nothing more.
    assert.equal((await confirmSandboxDeposit(ramp.depositInstructions.details.confirmDepositAt)).status, 200);
    assert.equal(await assetBalance(svc, wallet, usdc), '100');
  });

  test('off-ramp 40: paid from the wallet with the gas wallet paying the fee; the balance moves, XLM does not', async () => {
    const xlmBefore = await xlmStroops(svc, wallet);
    const quote = await quoteOk(user, { direction: 'off', asset: usdc, amount: '40' });
    assert.equal(quote.cryptoAmount, '40');
    assert.equal(quote.fiatAmount, '39.7');
    const started = await startRamp(user, quote.quoteId);
    assert.equal(started.status, 201, started.text);
    assert.equal(started.body.content.status, 'completed');
    assert.match(started.body.content.stellarTxHash, /^[0-9a-f]{64}$/);
    assert.equal(await assetBalance(svc, wallet, usdc), '60');
    assert.equal(await xlmStroops(svc, wallet), xlmBefore, 'the fee was sponsored');
    const payout = await svc.deps.db('sandbox_fiat_ledger').where({ ramp_tx_id: started.body.content.txId }).first();
    assert.deepEqual([payout.kind, payout.amount], ['payout', '39.7']);
  });

  test('history and webhooks show each step', async () => {
    await eventually(
      'the history has the USDC received and sent',
      async () => {
        const history = await user.call('getTxHistory', 'GET', '/v1/tx/history?limit=20');
        const records = history.body.content.records as { details?: any; summary: string }[];
        const text = JSON.stringify(records);
        return text.includes('100') && text.includes('40');
      },
      30_000,
    );
    await eventually(
      'ramp.updated for both ramps, payment.received and payment.sent delivered',
      async () => {
        const b = bodies();
        const statuses = b.filter((x) => x.event === 'ramp.updated').map((x) => `${x.data.direction}:${x.data.status}`);
        return (
          ['on:awaiting_deposit', 'on:processing', 'on:completed', 'off:completed'].every((s) =>
            statuses.includes(s),
          ) &&
          b.some((x) => x.event === 'payment.received' && x.data.to === wallet && x.data.amount === '100') &&
          b.some((x) => x.event === 'payment.sent' && x.data.from === wallet && x.data.amount === '40')
        );
      },
      30_000,
    );
    for (const delivery of receiver.received) assert.deepEqual(deliveryProblems(delivery, [secret]), []);
  });
});

describe('ramp refusals through the API', () => {
  let user: UserClient;
  before(async () => {
    user = await fundedRampUser(svc, creds);
    await svc.deps.db('kyc_verifications').insert({
      id: `kyv_approved${Date.now()}`,
      app_id: app.id,
      user_id: user.userId,
      provider_id: 'sandbox',
      level: 'basic',
      status: 'approved',
      session_id: `kys_approved${Date.now()}`,
      session_expires_at: new Date(Date.now() + 60_000),
      decided_at: new Date(),
      created_at: new Date(),
      updated_at: new Date(),
    });
  });

  test('out of range: 422 with limit, limitAmount and limitCurrency, at both ends', async () => {
    const low = await quoteRamp(user, { direction: 'on', asset: usdc, amount: '5' });
    assert.equal(low.status, 422, low.text);
    assert.equal(low.body.code, 'SDK_RAMPS_AMOUNT_OUT_OF_RANGE');
    assert.deepEqual([low.body.limit, low.body.limitAmount, low.body.limitCurrency], ['min', '20', 'USD']);
    const high = await quoteRamp(user, { direction: 'on', asset: usdc, amount: '20000', amountIn: 'fiat' });
    assert.equal(high.status, 422, high.text);
    assert.deepEqual([high.body.limit, high.body.limitAmount, high.body.limitCurrency], ['max', '10000', 'USD']);
  });

  test('an unknown provider 404; another currency 422 ROUTE_NOT_OFFERED; an asset not enabled 422', async () => {
    const unknown = await quoteRamp(user, { providerId: 'acme-ramp', direction: 'on', asset: usdc, amount: '50' });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 'SDK_RAMPS_PROVIDER_NOT_FOUND');
    const eur = await quoteRamp(user, { direction: 'on', asset: usdc, amount: '50', fiatCurrency: 'EUR' });
    assert.equal(eur.status, 422, eur.text);
    assert.equal(eur.body.code, 'SDK_RAMPS_ROUTE_NOT_OFFERED');
    const other = await quoteRamp(user, {
      direction: 'on',
      asset: 'EURC:GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5',
      amount: '50',
    });
    assert.equal(other.status, 422, other.text);
    assert.equal(other.body.code, 'SDK_RAMPS_ASSET_NOT_ENABLED');
  });

  test("an expired quote: 410 SDK_RAMPS_QUOTE_EXPIRED; an unknown or another user's quote: 404", async () => {
    const quote = await quoteOk(user, { direction: 'on', asset: usdc, amount: '50' });
    await svc.deps
      .db('ramp_quotes')
      .where({ id: quote.quoteId })
      .update({ expires_at: new Date(Date.now() - 1000) });
    const expired = await startRamp(user, quote.quoteId);
    assert.equal(expired.status, 410, expired.text);
    assert.equal(expired.body.code, 'SDK_RAMPS_QUOTE_EXPIRED');
    const unknown = await startRamp(user, 'rmq_doesnotexist1234567890');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 'SDK_RAMPS_QUOTE_NOT_FOUND');
    const other = await fundedRampUser(svc, creds);
    const theirs = await quoteOk(other, { direction: 'on', asset: usdc, amount: '50' });
    const stolen = await startRamp(user, theirs.quoteId);
    assert.equal(stolen.status, 404);
    assert.equal(stolen.body.code, 'SDK_RAMPS_QUOTE_NOT_FOUND');
  });

  test("an unknown ramp or another user's: 404 SDK_RAMPS_TX_NOT_FOUND", async () => {
    const missing = await getRamp(user, 'rmt_doesnotexist1234567890');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, 'SDK_RAMPS_TX_NOT_FOUND');
  });

  test('off-ramp beyond the balance: 422 SDK_RAMPS_INSUFFICIENT_BALANCE, nothing recorded, balance untouched', async () => {
    const wallet = user.signIn.wallet.publicKey;
    const quote = await quoteOk(user, { direction: 'off', asset: usdc, amount: '25' });
    const refused = await startRamp(user, quote.quoteId);
    assert.equal(refused.status, 422, refused.text);
    assert.equal(refused.body.code, 'SDK_RAMPS_INSUFFICIENT_BALANCE');
    assert.equal(await assetBalance(svc, wallet, usdc), '0');
    assert.equal((await svc.deps.db('ramp_transactions').where({ quote_id: quote.quoteId })).length, 0);
    const txs = await svc.deps.db('transactions').where({ wallet_id: user.signIn.wallet.walletId, origin: 'built' });
    assert.equal(txs.length, 0, 'no transaction recorded');
  });

  test('two off-ramps the wallet covers once: one completes, the other is rejected on chain (result code), nothing moved', async () => {
    // 30 USDC delivered by an on-ramp, then two off-ramps of 25 started at once: both pass the balance check, the
    // wallet's transactions land in turn, and the second fails in its ledger (op_underfunded).
    const on = await quoteOk(user, { direction: 'on', asset: usdc, amount: '30' });
    const started = await startRamp(user, on.quoteId);
    assert.equal(started.status, 201, started.text);
    assert.equal(
      (await confirmSandboxDeposit(started.body.content.depositInstructions.details.confirmDepositAt)).status,
      200,
    );
    const wallet = user.signIn.wallet.publicKey;
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
    assert.equal(await assetBalance(svc, wallet, usdc), '5');
    const rows = await svc.deps.db('ramp_transactions').whereIn('quote_id', [a.quoteId, b.quoteId]).orderBy('status');
    assert.deepEqual(
      rows.map((r) => r.status),
      ['completed', 'failed'],
    );
  });

  test('the ramps job: an on-ramp nobody paid expires with its instructions, without a poll, with its event', async () => {
    const quote = await quoteOk(user, { direction: 'on', asset: usdc, amount: '20' });
    const started = await startRamp(user, quote.quoteId);
    assert.equal(started.status, 201, started.text);
    const rampTxId = started.body.content.txId;
    const row = await svc.deps.db('ramp_transactions').where({ id: rampTxId }).first();
    const past = new Date(Date.now() - 60_000);
    await svc.deps
      .db('ramp_transactions')
      .where({ id: rampTxId })
      .update({
        deposit_instructions: { ...row.deposit_instructions, expiresAt: past.toISOString() },
        updated_at: past,
      });
    await followOpenRamps(svc.deps);
    const after = await svc.deps.db('ramp_transactions').where({ id: rampTxId }).first();
    assert.equal(after.status, 'expired');
    const events = await svc.deps
      .db('outbox_events')
      .where({ app_id: app.id, type: 'ramp.updated' })
      .whereRaw("data->>'rampTxId' = ?", [rampTxId])
      .orderBy('created_at');
    assert.deepEqual(
      events.map((e) => e.data.status),
      ['awaiting_deposit', 'expired'],
    );
    const read = await getRamp(user, rampTxId);
    assert.equal(read.body.content.status, 'expired');
    assert.equal(read.body.content.depositInstructions, undefined, 'no instructions for an expired ramp');
  });
});
