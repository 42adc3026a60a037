// What the push runner does when a chunk cannot be paid: the app archived or the push's asset no longer among the
// app's assets after the push was made (its recipients `failed` with that code, retryable once put right), and a read
// before paying that fails (the RPC unreachable): nothing was sent, so the recipients are pending again at once and
// the pass goes on; a recipient taken more than five times without being sent is `failed` with `not_sent`. The
// service runs no jobs (WORKERS=off): the test runs the passes itself.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair } from '@stellar/stellar-sdk';
import { SYSTEM_ACTOR } from '../../src/domain/audit/auditLog';
import { archiveApp, findApp, restoreApp, updateAppSettings, type App } from '../../src/domain/apps/store';
import { createPush } from '../../src/domain/distribution/pushes';
import { runPushPass } from '../../src/domain/distribution/pushRunner';
import { ensureAppWallet } from '../../src/domain/wallets/appWallets';
import { seedCredentials } from '../support/credentials';
import { userWallet } from '../support/funding';
import { startTestService, type TestService } from '../support/service';

describe('distribution push: chunks that cannot be paid', () => {
  let svc: TestService;
  let app: App;
  const asset = `USDC:${Keypair.random().publicKey()}`;
  before(async () => {
    svc = await startTestService({ WORKERS: 'off' });
    const creds = await seedCredentials(svc.deps.db);
    await ensureAppWallet(svc.deps, { app: creds.app, role: 'global' });
    await updateAppSettings(svc.deps.db, creds.app.id, { assets: [asset] });
    app = (await findApp(svc.deps.db, creds.app.id))!;
  });
  after(async () => {
    await svc?.stop();
  });

  /** A push of 1 `pushAsset` to `n` new users of the app (wallets not activated: nothing could be sent anyway). */
  async function pushTo(n: number, pushAsset = asset): Promise<string> {
    const wallets = await Promise.all(Array.from({ length: n }, () => userWallet(svc, app)));
    const push = await createPush(
      svc.deps,
      (await findApp(svc.deps.db, app.id))!,
      { asset: pushAsset, amount: '1', recipients: { userIds: wallets.map((w) => w.userId!) } },
      { actor: SYSTEM_ACTOR, at: new Date() },
    );
    return push.pushId;
  }
  const recipientsOf = (pushId: string) =>
    svc.deps.db('distribution_push_recipients').where({ push_id: pushId }).orderBy('position');

  test('an asset removed from the app after the push: its recipients fail DISTRIBUTION_ASSET_NOT_ENABLED', async () => {
    const pushId = await pushTo(2);
    await updateAppSettings(svc.deps.db, app.id, { assets: [] });
    try {
      assert.equal(await runPushPass(svc.deps), 'idle');
    } finally {
      await updateAppSettings(svc.deps.db, app.id, { assets: [asset] });
    }
    const rows = await recipientsOf(pushId);
    assert.deepEqual(
      rows.map((r) => [r.status, r.failure_code]),
      [
        ['failed', 'DISTRIBUTION_ASSET_NOT_ENABLED'],
        ['failed', 'DISTRIBUTION_ASSET_NOT_ENABLED'],
      ],
    );
    const push = await svc.deps.db('distribution_pushes').where({ id: pushId }).first();
    assert.equal(push.status, 'completed');
  });

  test('an archived app: the recipients of its pushes fail APPLICATION_NOT_FOUND (retryable once it is restored)', async () => {
    const pushId = await pushTo(1);
    await archiveApp(svc.deps.db, app.id);
    try {
      await runPushPass(svc.deps);
    } finally {
      await restoreApp(svc.deps.db, app.id);
    }
    const [row] = await recipientsOf(pushId);
    assert.deepEqual([row.status, row.failure_code], ['failed', 'APPLICATION_NOT_FOUND']);
  });

  test('a read before paying fails: nothing was sent, the recipients are pending again; after 5 takes, not_sent', async () => {
    const pushId = await pushTo(3);
    // The wallets are activated as far as the database knows, so the runner reads their trustlines: the RPC fails.
    const positions = (await recipientsOf(pushId)).map((r) => r.wallet_id);
    await svc.deps.db('wallets').whereIn('id', positions).update({ funding_state: 'funded', funded_at: new Date() });
    const gw = svc.deps.stellar!.gateways!.testnet!;
    const original = gw.trustlineHolders;
    gw.trustlineHolders = () => Promise.reject(new Error('Stellar RPC getLedgerEntries failed: connect ECONNREFUSED'));
    try {
      for (let take = 1; take <= 5; take++) {
        assert.equal(await runPushPass(svc.deps), 'idle', 'a failed chunk ends the pass');
        const rows = await recipientsOf(pushId);
        assert.deepEqual(
          rows.map((r) => [r.status, r.attempts, r.tx_hash]),
          rows.map(() => ['pending', take, null]),
          `take ${take}`,
        );
      }
      await runPushPass(svc.deps);
      const rows = await recipientsOf(pushId);
      assert.deepEqual(
        rows.map((r) => [r.status, r.failure_code]),
        rows.map(() => ['failed', 'not_sent']),
      );
    } finally {
      gw.trustlineHolders = original;
    }
  });
});
