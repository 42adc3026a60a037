// Trustlines for assets enabled after wallets were funded, on real PostgreSQL and the in-process localnet: a PATCH
// that adds an asset gets every funded wallet of the app a trustline sponsored by the funding wallet (the fee paid by
// the gas wallet's fee-bump), in the background; an empty funding wallet leaves the work recorded as
// INSUFFICIENT_FUNDS_FOR_TRUSTLINE and nothing on the ledger. Under concurrency no asset is missed: settings changes
// racing each other, and an activation built with the list from before a change.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Asset, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { findApp, type App } from '../../src/domain/apps/store';
import { SYSTEM_ACTOR } from '../../src/domain/audit/auditLog';
import { withWalletKeypair } from '../../src/domain/wallets/custody';
import { fundUserWallet } from '../../src/domain/funding/funding';
import { fromStroops } from '../../src/domain/money/amounts';
import { availableStroops } from '../../src/infra/stellar/gateway';
import { signInOperator } from '../support/operators';
import { startTestService, type TestService } from '../support/service';
import { appWithWallet, eventually, gatewayOf, issuedAssets, lockedStroops, userWallet } from '../support/funding';

let svc: TestService;

before(async () => {
  svc = await startTestService({ ACTIVATION_RETRY_SECONDS: '1' }, { closeLedgersEveryMs: 100 });
});
after(async () => {
  await svc?.stop();
});

/** An app with two funded user wallets, and a signed-in operator who is its owner. */
async function appWithFundedWallets(opts: { drain?: boolean } = {}) {
  const { creds, app, appWallet } = await appWithWallet(svc);
  const wallets = [await userWallet(svc, app), await userWallet(svc, app)];
  for (const wallet of wallets)
    await fundUserWallet(svc.deps, { app, wallet, trigger: 'server_api', actor: SYSTEM_ACTOR });
  const operator = await signInOperator(svc, creds.operator.email!);
  if (opts.drain) {
    // Pays away everything the funding wallet has available but 0.1 XLM: less than one trustline reserve.
    const gw = gatewayOf(svc);
    const sink = Keypair.random().publicKey();
    await gw.fundWithFriendbot(sink);
    const account = (await gw.loadAccount(appWallet.publicKey))!;
    const { baseReserveStroops } = await gw.ledgerFigures();
    const amount = fromStroops(availableStroops(account, baseReserveStroops) - 1_000_000n - 100n);
    const tx = new TransactionBuilder(new Account(appWallet.publicKey, account.sequence), {
      fee: '100',
      networkPassphrase: gw.networkPassphrase,
    })
      .addOperation(Operation.payment({ destination: sink, asset: Asset.native(), amount }))
      .setTimeout(60)
      .build();
    await withWalletKeypair(
      svc.deps,
      { walletId: appWallet.id, purpose: 'test.drain', actor: SYSTEM_ACTOR },
      async (kp) => tx.sign(kp),
    );
    await gw.submitAndConfirm(tx);
  }
  return { app, appWallet, wallets, operator };
}

describe('enabling an asset after wallets were funded', () => {
  test('both funded wallets get the trustline, sponsored by the funding wallet (0.5 XLM more locked each), one trustline.added per wallet', async () => {
    const { app, appWallet, wallets, operator } = await appWithFundedWallets();
    const [asset] = await issuedAssets(svc, ['NEW']);
    const lockedBefore = await lockedStroops(svc, appWallet.publicKey);

    const res = await operator.call('updateApp', 'PATCH', `/api/v1/apps/${app.id}`, { body: { assets: [asset!] } });
    assert.equal(res.status, 200, res.text);

    const gw = gatewayOf(svc);
    await eventually('both wallets trust the new asset', async () => {
      const lines = await Promise.all(wallets.map((w) => gw.trustlines(w.publicKey, [asset!])));
      return lines.every((l) => l.length === 1);
    });
    for (const wallet of wallets) {
      const [line] = await gw.trustlines(wallet.publicKey, [asset!]);
      assert.equal(line!.sponsor, appWallet.publicKey);
    }
    assert.equal((await lockedStroops(svc, appWallet.publicKey)) - lockedBefore, 2n * 5_000_000n);
    await eventually(
      'the rows are recorded as added',
      async () => (await svc.deps.db('trustline_backfills').where({ app_id: app.id, status: 'added' })).length === 2,
    );
    const events = await svc.deps.db('outbox_events').where({ app_id: app.id, type: 'trustline.added' });
    assert.deepEqual(events.map((e) => e.data.walletId).sort(), wallets.map((w) => w.id).sort());
    assert.ok(events.every((e) => e.data.asset === asset));
    assert.ok(
      await svc.deps
        .db('audit_log')
        .where({ app_id: app.id, action: 'key.decrypt', purpose: 'trustline.sponsor' })
        .first(),
    );
    const [row] = await svc.deps.db('trustline_backfills').where({ app_id: app.id }).select('tx_hash');
    const sent = await gw.transactionDetails(row!.tx_hash);
    assert.equal(sent?.feeBump, true, 'the trustlines went out in a fee-bump');
    assert.ok(
      await svc.deps
        .db('audit_log')
        .where({ app_id: app.id, action: 'key.decrypt', purpose: 'tx.fee_bump', wallet_id: appWallet.id })
        .first(),
      'signed by the gas wallet',
    );

    // Removing the asset leaves the lines where they are.
    const removed = await operator.call('updateApp', 'PATCH', `/api/v1/apps/${app.id}`, { body: { assets: [] } });
    assert.equal(removed.status, 200, removed.text);
    assert.equal((await findApp(svc.deps.db, app.id))!.assets.length, 0);
    for (const wallet of wallets) assert.equal((await gw.trustlines(wallet.publicKey, [asset!])).length, 1);
  });

  test('an empty funding wallet: INSUFFICIENT_FUNDS_FOR_TRUSTLINE recorded, no trustline on the ledger, no event', async () => {
    const { app, appWallet, wallets, operator } = await appWithFundedWallets({ drain: true });
    const [asset] = await issuedAssets(svc, ['NOPE']);
    const lockedBefore = await lockedStroops(svc, appWallet.publicKey);

    const res = await operator.call('updateApp', 'PATCH', `/api/v1/apps/${app.id}`, { body: { assets: [asset!] } });
    assert.equal(res.status, 200, res.text);

    await eventually('both rows record the shortfall', async () => {
      const rows = await svc.deps.db('trustline_backfills').where({ app_id: app.id });
      return (
        rows.length === 2 &&
        rows.every((r) => r.status === 'pending' && /^INSUFFICIENT_FUNDS_FOR_TRUSTLINE/.test(r.last_error ?? ''))
      );
    });
    const gw = gatewayOf(svc);
    for (const wallet of wallets) assert.deepEqual(await gw.trustlines(wallet.publicKey, [asset!]), []);
    assert.equal(await lockedStroops(svc, appWallet.publicKey), lockedBefore);
    assert.equal(
      (
        await svc.deps
          .db('outbox_events')
          .where({ app_id: app.id, type: 'trustline.added' })
          .whereRaw("data->>'asset' = ?", [asset!])
      ).length,
      0,
    );
  });
});

/** The assets each wallet has backfill work recorded for (any status). */
async function owed(appId: string): Promise<Map<string, string[]>> {
  const rows = await svc.deps
    .db('trustline_backfills')
    .where({ app_id: appId })
    .orderBy('asset')
    .select('wallet_id', 'asset');
  const byWallet = new Map<string, string[]>();
  for (const r of rows) byWallet.set(r.wallet_id, [...(byWallet.get(r.wallet_id) ?? []), r.asset]);
  return byWallet;
}

/** Assets of issuers that do not exist: the work is recorded but can never be done, so it stays in place to be read. */
const unissued = (...codes: string[]) => codes.map((code) => `${code}:${Keypair.random().publicKey()}`);

describe('enabling assets under concurrency', () => {
  test('concurrent PATCHes adding different assets: every asset of the final settings has its work for every funded wallet', async () => {
    const { app, wallets, operator } = await appWithFundedWallets();
    const assets = unissued('AAA', 'BBB', 'CCC', 'DDD', 'EEE', 'FFF');
    // Each operator tab adds its own asset to what it saw (nothing yet), all at once.
    const answers = await Promise.all(
      assets.map((asset) =>
        operator.call('updateApp', 'PATCH', `/api/v1/apps/${app.id}`, { body: { assets: [asset] } }),
      ),
    );
    assert.deepEqual(
      answers.map((r) => r.status),
      Array(assets.length).fill(200),
      answers.map((r) => r.text).join('\n'),
    );
    const final = (await findApp(svc.deps.db, app.id))!.assets;
    assert.equal(final.length, 1);
    const work = await owed(app.id);
    for (const wallet of wallets)
      for (const asset of final) assert.ok(work.get(wallet.id)?.includes(asset), `${wallet.id} is owed ${asset}`);
  });

  test('a change that brings back an asset a concurrent change removed (its pending work dropped meanwhile) records it again', async () => {
    const { app, wallets, operator } = await appWithFundedWallets();
    const [a, b] = unissued('AAA', 'BBB');
    assert.equal(
      (await operator.call('updateApp', 'PATCH', `/api/v1/apps/${app.id}`, { body: { assets: [a!] } })).status,
      200,
    );
    assert.deepEqual([...(await owed(app.id)).values()], [[a], [a]]);

    // Another change holds the app row: it removes A, and the backfill loop drops A's pending work (both done here in
    // one transaction, so that they land between this PATCH's read of the settings and its write).
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const other = svc.deps.db.transaction(async (trx) => {
      await trx('apps').where({ id: app.id }).forUpdate().first('id');
      locked();
      await released;
      await trx('apps').where({ id: app.id }).update({ assets: [] });
      await trx('trustline_backfills').where({ app_id: app.id, asset: a!, status: 'pending' }).del();
    });
    await isLocked;
    const patch = operator.call('updateApp', 'PATCH', `/api/v1/apps/${app.id}`, { body: { assets: [a!, b!] } });
    await eventually('the PATCH waits for the app row', async () => {
      const waiting = await svc.deps
        .db('pg_stat_activity')
        .where({ wait_event_type: 'Lock', datname: svc.deps.db.raw('current_database()') })
        .whereLike('query', '%"apps"%')
        .count<{ count: string }[]>('* as count');
      return Number(waiting[0]!.count) > 0;
    });
    release();
    await other;
    const res = await patch;
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.content.assets, [a, b]);
    const work = await owed(app.id);
    for (const wallet of wallets) assert.deepEqual(work.get(wallet.id), [a, b].sort(), `${wallet.id} is owed both`);
  });

  test("an activation built with the asset list from before a PATCH: the wallet gets the new asset's trustline all the same", async () => {
    const { app, appWallet, operator } = await appWithFundedWallets();
    const [asset] = await issuedAssets(svc, ['LATE']);
    const wallet = await userWallet(svc, app);
    const stale: App = { ...app, assets: [] }; // what the activation read before the PATCH committed
    const res = await operator.call('updateApp', 'PATCH', `/api/v1/apps/${app.id}`, { body: { assets: [asset!] } });
    assert.equal(res.status, 200, res.text);
    assert.equal(
      await svc.deps.db('trustline_backfills').where({ wallet_id: wallet.id }).first(),
      undefined,
      'the PATCH saw the wallet unfunded',
    );

    await fundUserWallet(svc.deps, { app: stale, wallet, trigger: 'server_api', actor: SYSTEM_ACTOR });
    const gw = gatewayOf(svc);
    assert.deepEqual(await gw.trustlines(wallet.publicKey, [asset!]), [], 'activated without the new asset');
    await eventually(
      'the wallet trusts the asset enabled while it was being activated',
      async () => (await gw.trustlines(wallet.publicKey, [asset!])).length === 1,
    );
    const [line] = await gw.trustlines(wallet.publicKey, [asset!]);
    assert.equal(line!.sponsor, appWallet.publicKey);
  });
});
