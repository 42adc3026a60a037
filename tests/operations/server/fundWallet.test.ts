// POST /v1/wallets/fund, every status of the contract, against the real service: PostgreSQL and the in-process
// localnet (ledgers every 200 ms). The ledger is read after each answer: what the endpoint says happened did happen.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FeeBumpTransaction, Keypair, TransactionBuilder } from '@stellar/stellar-sdk';
import type { App } from '../../../src/domain/apps/store';
import { SYSTEM_ACTOR } from '../../../src/domain/audit/auditLog';
import { appWalletFor } from '../../../src/domain/wallets/treasuryWallets';
import { setTreasuryLayout } from '../../../src/domain/treasury/treasury';
import type { WalletRecord } from '../../../src/domain/wallets/store';
import { call } from '../../support/http';
import { startTestService, type TestService } from '../../support/service';
import { appWithWallet, gatewayOf, issuedAssets, lockedStroops, reload, userWallet } from '../../support/funding';

let svc: TestService;
let app: App;
let appWallet: WalletRecord;
let secretKey: string;

before(async () => {
  svc = await startTestService({}, { closeLedgersEveryMs: 100 });
  ({
    app,
    appWallet,
    creds: { secretKey },
  } = await appWithWallet(svc));
});
after(async () => {
  await svc?.stop();
});

const fund = (publicKey: unknown, key = secretKey) =>
  call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', {
    headers: { 'x-service-api-key': key },
    body: { publicKey },
  });

describe('POST /v1/wallets/fund: 200', () => {
  test('activates the wallet: sponsored account on-chain, 1 XLM locked in the app wallet, startingBalance "0", funded in the database', async () => {
    const wallet = await userWallet(svc, app);
    const lockedBefore = await lockedStroops(svc, appWallet.publicKey);
    const res = await fund(wallet.publicKey);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      content: { publicKey: wallet.publicKey, startingBalance: '0' },
      code: 'SERVER_WALLET_FUNDED',
      success: true,
    });

    const account = await gatewayOf(svc).loadAccount(wallet.publicKey);
    assert.ok(account, 'the account exists on-chain');
    assert.equal(account.sponsor, appWallet.publicKey);
    assert.equal(account.numSponsored, 2);
    assert.equal(account.balanceStroops, 0n);
    assert.equal((await lockedStroops(svc, appWallet.publicKey)) - lockedBefore, 10_000_000n);

    const stored = await reload(svc, wallet);
    assert.equal(stored.fundingState, 'funded');
    assert.ok(stored.fundedAt);
    const audit = await svc.deps
      .db('audit_log')
      .where({ wallet_id: wallet.id })
      .orderBy('created_at')
      .select('action', 'purpose', 'actor_type');
    assert.deepEqual(
      audit.map((a) => a.action),
      ['key.decrypt', 'wallet.funded'],
      'the user key decrypted once, audited, then the funding recorded',
    );
    const events = await svc.deps
      .db('outbox_events')
      .where({ app_id: app.id })
      .whereRaw(`data->>'walletId' = ?`, [wallet.id])
      .select('type', 'data');
    assert.deepEqual(
      events.map((e) => e.type),
      ['wallet.activated'],
    );
    assert.equal(events[0].data.address, wallet.publicKey);
  });

  test("the activation went out as a fee-bump paid by the gas wallet (the global one here), and shows in the user's history", async () => {
    const wallet = await userWallet(svc, app);
    assert.equal((await fund(wallet.publicKey)).status, 200);
    const activation = await svc.deps.db('wallet_activations').where({ wallet_id: wallet.id }).first();
    const sent = TransactionBuilder.fromXDR(activation.envelope_xdr, gatewayOf(svc).networkPassphrase);
    assert.ok(sent instanceof FeeBumpTransaction, 'the recorded envelope is a fee-bump');
    assert.equal(sent.feeSource, appWallet.publicKey);
    assert.equal(Buffer.from(sent.hash()).toString('hex'), activation.tx_hash, "the recorded hash is the fee-bump's");
    const onChain = await gatewayOf(svc).transactionDetails(activation.tx_hash);
    assert.equal(onChain?.status, 'SUCCESS');
    assert.equal(onChain?.feeBump, true);

    const tx = await svc.deps.db('transactions').where({ hash: activation.tx_hash }).first();
    assert.ok(tx, 'the activation is a transaction of the service');
    assert.deepEqual(
      [
        tx.origin,
        tx.status,
        tx.stage,
        tx.operation,
        tx.summary,
        tx.wallet_id,
        tx.user_id,
        tx.fee_source,
        tx.ledger,
        tx.network,
      ],
      [
        'activation',
        'SUCCESS',
        'confirmed',
        'createAccount',
        'Wallet activated',
        wallet.id,
        wallet.userId,
        appWallet.publicKey,
        activation.ledger,
        'testnet',
      ],
    );
    assert.equal(
      BigInt(tx.fee_stroops),
      onChain.feeChargedStroops,
      'the fee recorded is the fee charged: (3 + 1) x 100 stroops',
    );
    assert.equal(BigInt(tx.fee_stroops), 400n);
    assert.equal(tx.inner_hash, Buffer.from(sent.innerTransaction.hash()).toString('hex'));
    const history = await svc.deps
      .db('tx_history')
      .where({ wallet_id: wallet.id })
      .select('transaction_id', 'direction', 'summary');
    assert.deepEqual(history, [{ transaction_id: tx.id, direction: 'received', summary: 'Wallet activated' }]);
    assert.equal(
      Number((await svc.deps.db('wallet_history_counts').where({ wallet_id: wallet.id }).first()).records),
      1,
    );
  });

  test('with a starting balance and two assets: trustlines sponsored, 2 XLM locked, 2.5 XLM spendable in the wallet', async () => {
    const assets = await issuedAssets(svc, ['USDC', 'EURC']);
    const configured = await appWithWallet(svc, { settings: { assets, startingBalanceXlm: '2.5' } });
    const wallet = await userWallet(svc, configured.app);
    const lockedBefore = await lockedStroops(svc, configured.appWallet.publicKey);
    const res = await fund(wallet.publicKey, configured.creds.secretKey);
    assert.equal(res.status, 200);
    assert.equal(res.body.content.startingBalance, '2.5');
    const gw = gatewayOf(svc);
    assert.equal((await gw.loadAccount(wallet.publicKey))!.balanceStroops, 25_000_000n);
    const lines = await gw.trustlines(wallet.publicKey, assets);
    assert.deepEqual(
      lines.map((l) => [l.asset, l.sponsor]),
      assets.map((a) => [a, configured.appWallet.publicKey]),
    );
    assert.equal((await lockedStroops(svc, configured.appWallet.publicKey)) - lockedBefore, 20_000_000n);
    const events = await svc.deps
      .db('outbox_events')
      .where({ app_id: configured.app.id })
      .orderBy('created_at')
      .select('type', 'data');
    assert.deepEqual(events.map((e) => e.type).sort(), ['trustline.added', 'trustline.added', 'wallet.activated']);
  });
});

describe('POST /v1/wallets/fund: errors', () => {
  test('400: a missing or malformed publicKey, and a G-address whose checksum is wrong', async () => {
    for (const body of [{}, { publicKey: 'GABC' }]) {
      const res = await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', {
        headers: { 'x-service-api-key': secretKey },
        body,
      });
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.ok(res.body.details.fieldErrors.publicKey, JSON.stringify(res.body));
    }
    const valid = Keypair.random().publicKey();
    const badChecksum = valid.slice(0, -1) + (valid.endsWith('A') ? 'B' : 'A');
    const res = await fund(badChecksum);
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.details, { fieldErrors: { publicKey: ['must be a Stellar G-address (checksum)'] } });
  });

  test("404 WALLET_NOT_FOUND: an unknown address, another app's wallet, the app's own treasury wallet", async () => {
    const other = await appWithWallet(svc, { funded: false });
    const foreign = await userWallet(svc, other.app);
    for (const publicKey of [Keypair.random().publicKey(), foreign.publicKey, appWallet.publicKey]) {
      const res = await fund(publicKey);
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'WALLET_NOT_FOUND');
    }
    assert.equal((await reload(svc, foreign)).fundingState, 'unfunded');
  });

  test('409 WALLET_ALREADY_FUNDED: a second call changes nothing on-chain', async () => {
    const wallet = await userWallet(svc, app);
    assert.equal((await fund(wallet.publicKey)).status, 200);
    const locked = await lockedStroops(svc, appWallet.publicKey);
    const again = await fund(wallet.publicKey);
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'WALLET_ALREADY_FUNDED');
    assert.equal(await lockedStroops(svc, appWallet.publicKey), locked);
  });

  test('402 FUND_XLM_FAILED before anything is submitted: the funding wallet does not exist or holds too little; funded after a top-up', async () => {
    const poor = await appWithWallet(svc, { funded: false, settings: { startingBalanceXlm: '1' } });
    const wallet = await userWallet(svc, poor.app);
    const res = await fund(wallet.publicKey, poor.creds.secretKey);
    assert.equal(res.status, 402);
    assert.equal(res.body.code, 'FUND_XLM_FAILED');
    assert.match(
      res.body.message,
      /funding wallet cannot cover 2 XLM \(1 XLM reserve \+ 1 XLM starting balance\)/,
      "the fee is the gas wallet's, not counted here",
    );
    assert.equal(await gatewayOf(svc).loadAccount(wallet.publicKey), undefined, 'no account was created');
    assert.equal((await reload(svc, wallet)).fundingState, 'unfunded', 'the claim was given back');
    const attempt = await svc.deps.db('wallet_activations').where({ wallet_id: wallet.id }).first();
    assert.equal(attempt.attempts, 0, 'no envelope was built');

    await gatewayOf(svc).fundWithFriendbot(poor.appWallet.publicKey);
    const retried = await fund(wallet.publicKey, poor.creds.secretKey);
    assert.equal(retried.status, 200);
    assert.equal(retried.body.content.startingBalance, '1');
  });
});

describe('POST /v1/wallets/fund: separate funding and gas wallets (split layout)', () => {
  test('402 FUND_XLM_FAILED naming the gas wallet when it cannot pay the fee (nothing submitted); after a top-up the gas wallet pays the fee and the funding wallet only the reserve', async () => {
    const split = await appWithWallet(svc);
    await setTreasuryLayout(svc.deps, { app: split.app, layout: 'split', actor: SYSTEM_ACTOR });
    const funding = (await appWalletFor(svc.deps.db, split.app.id, split.app.network, 'funding'))!;
    const gas = (await appWalletFor(svc.deps.db, split.app.id, split.app.network, 'gas'))!;
    assert.notEqual(gas.publicKey, funding.publicKey);
    const gw = gatewayOf(svc);
    assert.equal((await gw.loadAccount(gas.publicKey))!.balanceStroops, 0n, 'a new gas wallet holds nothing');
    const wallet = await userWallet(svc, split.app);

    const refused = await fund(wallet.publicKey, split.creds.secretKey);
    assert.equal(refused.status, 402, refused.text);
    assert.equal(refused.body.code, 'FUND_XLM_FAILED');
    assert.equal(
      refused.body.message,
      `The gas wallet ${gas.publicKey} cannot cover the activation fee of 0.00004 XLM`,
    );
    assert.equal(await gw.loadAccount(wallet.publicKey), undefined, 'no account was created');
    assert.equal((await reload(svc, wallet)).fundingState, 'unfunded', 'the claim was given back');
    assert.equal(
      (await svc.deps.db('wallet_activations').where({ wallet_id: wallet.id }).first()).attempts,
      0,
      'no envelope was built',
    );

    await gw.fundWithFriendbot(gas.publicKey);
    const [fundingBefore, gasBefore] = [
      (await gw.loadAccount(funding.publicKey))!,
      (await gw.loadAccount(gas.publicKey))!,
    ];
    const res = await fund(wallet.publicKey, split.creds.secretKey);
    assert.equal(res.status, 200, res.text);
    const [fundingAfter, gasAfter] = [
      (await gw.loadAccount(funding.publicKey))!,
      (await gw.loadAccount(gas.publicKey))!,
    ];
    assert.equal(fundingAfter.balanceStroops, fundingBefore.balanceStroops, 'the funding wallet paid no fee');
    assert.equal(fundingAfter.numSponsoring - fundingBefore.numSponsoring, 2, "it sponsors the account's reserve");
    assert.equal(gasBefore.balanceStroops - gasAfter.balanceStroops, 400n, 'the gas wallet paid the fee-bump fee');
    const activation = await svc.deps.db('wallet_activations').where({ wallet_id: wallet.id }).first();
    const tx = await svc.deps.db('transactions').where({ hash: activation.tx_hash }).first();
    assert.deepEqual(
      [tx.fee_source, BigInt(tx.fee_stroops), tx.source_account],
      [gas.publicKey, 400n, funding.publicKey],
    );
    const bumps = await svc.deps
      .db('audit_log')
      .where({ app_id: split.app.id, action: 'key.decrypt', wallet_id: gas.id, purpose: 'tx.fee_bump' });
    assert.equal(bumps.length, 1, 'the gas key signed the fee-bump, once');
  });
});

describe('POST /v1/wallets/fund: 503 when Stellar cannot be reached', () => {
  let down: TestService;
  before(async () => {
    down = await startTestService();
  });
  after(() => down?.stop());

  test('after the automatic retries: 503 STELLAR_UNAVAILABLE with Retry-After, the wallet still unfunded (nothing was sent)', async () => {
    const setup = await appWithWallet(down);
    const wallet = await userWallet(down, setup.app);
    await down.localnet!.stop();
    const started = Date.now();
    const res = await call(down.url, 'fundWallet', 'POST', '/v1/wallets/fund', {
      headers: { 'x-service-api-key': setup.creds.secretKey },
      body: { publicKey: wallet.publicKey },
    });
    assert.equal(res.status, 503);
    assert.equal(res.body.code, 'STELLAR_UNAVAILABLE');
    assert.ok(res.headers.get('retry-after'));
    assert.ok(Date.now() - started > 500, 'the service retried before giving up');
    assert.equal((await reload(down, wallet)).fundingState, 'unfunded');
  });
});
