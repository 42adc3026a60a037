// Trustlines for assets enabled after wallets were funded, on real PostgreSQL and the in-process localnet: a PATCH
// that adds an asset gets every funded wallet of the app a trustline sponsored by the funding wallet, in the
// background; an empty funding wallet leaves the work recorded as INSUFFICIENT_FUNDS_FOR_TRUSTLINE and nothing on the
// ledger.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Asset, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { findApp } from '../../src/domain/apps/store';
import { SYSTEM_ACTOR } from '../../src/domain/audit/auditLog';
import { withWalletKeypair } from '../../src/domain/wallets/custody';
import { fundUserWallet } from '../../src/domain/wallets/funding';
import { fromStroops } from '../../src/infra/stellar/amounts';
import { availableStroops } from '../../src/infra/stellar/gateway';
import { signInOperator } from '../support/operators';
import { startTestService, type TestService } from '../support/service';
import { appWithWallet, closeLedgersEvery, eventually, gatewayOf, issuedAssets, lockedStroops, userWallet } from './fundingSetup';

let svc: TestService;
let stopClosing: () => void;

before(async () => {
  svc = await startTestService({ ACTIVATION_RETRY_SECONDS: '1' });
  stopClosing = closeLedgersEvery(svc);
});
after(async () => {
  stopClosing?.();
  await svc?.stop();
});

/** An app with two funded user wallets, and a signed-in operator who is its owner. */
async function appWithFundedWallets(opts: { drain?: boolean } = {}) {
  const { creds, app, appWallet } = await appWithWallet(svc);
  const wallets = [await userWallet(svc, app), await userWallet(svc, app)];
  for (const wallet of wallets) await fundUserWallet(svc.deps, { app, wallet, trigger: 'server_api', actor: SYSTEM_ACTOR });
  const operator = await signInOperator(svc, creds.operator.email!);
  if (opts.drain) {
    // Pays away everything the funding wallet has available but 0.1 XLM: less than one trustline reserve.
    const gw = gatewayOf(svc);
    const sink = Keypair.random().publicKey();
    await gw.fundWithFriendbot(sink);
    const account = (await gw.loadAccount(appWallet.publicKey))!;
    const { baseReserveStroops } = await gw.ledgerFigures();
    const amount = fromStroops(availableStroops(account, baseReserveStroops) - 1_000_000n - 100n);
    const tx = new TransactionBuilder(new Account(appWallet.publicKey, account.sequence), { fee: '100', networkPassphrase: gw.networkPassphrase })
      .addOperation(Operation.payment({ destination: sink, asset: Asset.native(), amount }))
      .setTimeout(60)
      .build();
    await withWalletKeypair(svc.deps, { walletId: appWallet.id, purpose: 'test.drain', actor: SYSTEM_ACTOR }, async (kp) => tx.sign(kp));
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
    await eventually('the rows are recorded as added', async () => (await svc.deps.db('trustline_backfills').where({ app_id: app.id, status: 'added' })).length === 2);
    const events = await svc.deps.db('outbox_events').where({ app_id: app.id, type: 'trustline.added' });
    assert.deepEqual(events.map((e) => e.data.walletId).sort(), wallets.map((w) => w.id).sort());
    assert.ok(events.every((e) => e.data.asset === asset));
    assert.ok(await svc.deps.db('audit_log').where({ app_id: app.id, action: 'key.decrypt', purpose: 'trustline.sponsor' }).first());

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
      return rows.length === 2 && rows.every((r) => r.status === 'pending' && /^INSUFFICIENT_FUNDS_FOR_TRUSTLINE/.test(r.last_error ?? ''));
    });
    const gw = gatewayOf(svc);
    for (const wallet of wallets) assert.deepEqual(await gw.trustlines(wallet.publicKey, [asset!]), []);
    assert.equal(await lockedStroops(svc, appWallet.publicKey), lockedBefore);
    assert.equal((await svc.deps.db('outbox_events').where({ app_id: app.id, type: 'trustline.added' }).whereRaw("data->>'asset' = ?", [asset!])).length, 0);
  });
});
