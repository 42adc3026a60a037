// Funding modes and the funding flow's background work, on real PostgreSQL and the in-process localnet: Immediate
// mode funds a new wallet at sign-in, Deferred mode leaves it unfunded, an activation that cannot complete at sign-in
// is finished by the recovery loop, and concurrent activations of one app share the funding wallet's sequence. The
// Dashboard's Fund action is tested in tests/operations/dashboard-users/fundAppUserWallet.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SYSTEM_ACTOR } from '../../src/domain/audit/auditLog';
import { activateOnSignIn, fundUserWallet } from '../../src/domain/funding/funding';
import { startTestService, type TestService } from '../support/service';
import { appWithWallet, eventually, gatewayOf, lockedStroops, reload, userWallet } from '../support/funding';

let svc: TestService;

before(async () => {
  svc = await startTestService({ ACTIVATION_RETRY_SECONDS: '1' }, { closeLedgersEveryMs: 100 });
});
after(async () => {
  await svc?.stop();
});

describe('funding modes at sign-in', () => {
  test('Immediate: the new wallet is funded before sign-in answers, in well under 3 s', async () => {
    const { app, appWallet } = await appWithWallet(svc, { settings: { fundingMode: 'immediate' } });
    const wallet = await userWallet(svc, app);
    const started = Date.now();
    const after = await activateOnSignIn(svc.deps, { app, wallet });
    assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
    assert.equal(after.fundingState, 'funded');
    assert.equal((await gatewayOf(svc).loadAccount(wallet.publicKey))!.sponsor, appWallet.publicKey);
    const activation = await svc.deps.db('wallet_activations').where({ wallet_id: wallet.id }).first();
    assert.equal(activation.trigger, 'sign_in');
    assert.deepEqual(activation.requested_by, { type: 'user', id: wallet.userId });
  });

  test('Deferred: the wallet stays unfunded, no account on-chain, no reserve locked', async () => {
    const { app, appWallet } = await appWithWallet(svc, { settings: { fundingMode: 'deferred' } });
    const wallet = await userWallet(svc, app);
    const locked = await lockedStroops(svc, appWallet.publicKey);
    const after = await activateOnSignIn(svc.deps, { app, wallet });
    assert.equal(after.fundingState, 'unfunded');
    assert.equal(await gatewayOf(svc).loadAccount(wallet.publicKey), undefined);
    assert.equal(await lockedStroops(svc, appWallet.publicKey), locked);
    assert.equal(await svc.deps.db('wallet_activations').where({ wallet_id: wallet.id }).first(), undefined);
  });

  test('Immediate with an empty funding wallet: sign-in still answers (activating), and the background retry funds it after a top-up', async () => {
    const { app, appWallet } = await appWithWallet(svc, { settings: { fundingMode: 'immediate' }, funded: false });
    const wallet = await userWallet(svc, app);
    const after = await activateOnSignIn(svc.deps, { app, wallet });
    assert.equal(after.fundingState, 'activating');
    const pending = await svc.deps.db('wallet_activations').where({ wallet_id: wallet.id }).first();
    assert.match(pending.last_error, /cannot cover/);
    await gatewayOf(svc).fundWithFriendbot(appWallet.publicKey);
    await eventually(
      'the recovery loop funds the wallet',
      async () => (await reload(svc, wallet)).fundingState === 'funded',
    );
    assert.equal((await gatewayOf(svc).loadAccount(wallet.publicKey))!.sponsor, appWallet.publicKey);
  });
});

describe('funding flow', () => {
  test("five wallets of one app activated at once: all funded, each sponsored once (the funding wallet's sequence is shared)", async () => {
    const { app, appWallet } = await appWithWallet(svc);
    const wallets = await Promise.all(Array.from({ length: 5 }, () => userWallet(svc, app)));
    const before = (await gatewayOf(svc).loadAccount(appWallet.publicKey))!;
    const results = await Promise.allSettled(
      wallets.map((wallet) => fundUserWallet(svc.deps, { app, wallet, trigger: 'server_api', actor: SYSTEM_ACTOR })),
    );
    assert.deepEqual(
      results.map((r) => r.status),
      Array(5).fill('fulfilled'),
      JSON.stringify(results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok'))),
    );
    const after = (await gatewayOf(svc).loadAccount(appWallet.publicKey))!;
    assert.equal(after.numSponsoring - before.numSponsoring, 10);
    for (const wallet of wallets) assert.equal((await reload(svc, wallet)).fundingState, 'funded');

    // One transaction row per batch (shared fee-bump), one `received` history row per wallet.
    const activations = await svc.deps
      .db('wallet_activations')
      .whereIn(
        'wallet_id',
        wallets.map((w) => w.id),
      )
      .select('wallet_id', 'tx_hash');
    const hashes = [...new Set(activations.map((a) => a.tx_hash))];
    const txs = await svc.deps
      .db('transactions')
      .whereIn('hash', hashes)
      .select('id', 'hash', 'origin', 'ops_count', 'fee_stroops');
    assert.equal(txs.length, hashes.length, 'one transaction row per fee-bump sent');
    assert.ok(txs.every((t) => t.origin === 'activation'));
    assert.equal(
      txs.reduce((n, t) => n + t.ops_count, 0),
      5 * 3,
      'the batches hold the five activations',
    );
    assert.equal(
      txs.reduce((n, t) => n + BigInt(t.fee_stroops), 0n),
      BigInt(5 * 3 + txs.length) * 100n,
      'each fee-bump: one operation more',
    );
    const history = await svc.deps
      .db('tx_history')
      .whereIn(
        'wallet_id',
        wallets.map((w) => w.id),
      )
      .select('wallet_id', 'transaction_id', 'direction');
    assert.equal(history.length, 5);
    const txIdByHash = new Map(txs.map((t) => [t.hash, t.id]));
    for (const a of activations) {
      const row = history.find((h) => h.wallet_id === a.wallet_id);
      assert.deepEqual([row?.transaction_id, row?.direction], [txIdByHash.get(a.tx_hash), 'received']);
    }
  });
});
