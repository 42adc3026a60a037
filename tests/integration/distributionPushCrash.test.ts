// A distribution push and a crash: the service runs as a real child process (`src/main.ts`) on a shared database and
// chain, starts paying a push, and is killed (SIGKILL) while its payments wait in the ledger queue. The chain applies
// what was sent; a service started afterwards settles every recipient from the chain (paid when its recorded envelope
// is in a ledger; pending again, then paid with a new envelope, when it never applied) and pays the rest. Then the
// bank check: every recipient paid exactly once on the ledger, the distribution wallet moved by exactly the paid
// recipients, and each paid recipient's transaction is in a ledger.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SYSTEM_ACTOR } from '../../src/domain/audit/auditLog';
import { findApp } from '../../src/domain/apps/store';
import { createPush } from '../../src/domain/distribution/pushes';
import { issueDemoUsdc } from '../../src/domain/treasury/demoUsdc';
import { appWalletFor } from '../../src/domain/wallets/treasuryWallets';
import { crashDeployment, killChild, type CrashDeployment } from '../support/childService';
import { appWithWallet, closeLedgersEvery, eventually, untilFunded } from '../support/funding';
import { startTestService, type TestService } from '../support/service';
import { signInUser, type UserClient } from '../support/users';

const USERS = 12;
const AMOUNT_STROOPS = 10_000_000n; // 1 USDC

describe('distribution push: crash with payments in flight', () => {
  let deployment: CrashDeployment;
  let users: UserClient[];
  let usdc: string;
  let pushId: string;
  let distributionKey: string;
  let restarted: TestService | undefined;

  before(async () => {
    // A short payment window, so that an envelope that never applied is known dead within seconds. The channel
    // accounts exist before the crash (the seeding's activations create them: in the single layout the distribution
    // wallet is the funding wallet), as they would in a service that ran before.
    deployment = await crashDeployment('push-crash', {
      ACTIVATION_TIMEOUT_SECONDS: '15',
      ACTIVATION_CHANNELS: '2',
      DISTRIBUTION_CHANNELS: '2',
    });
    const { env, database, net, db } = deployment;
    const seeding = await startTestService(env, { database });
    const stop = closeLedgersEvery({ localnet: net });
    try {
      const setup = await appWithWallet(seeding, { settings: { fundingMode: 'immediate' } });
      ({ asset: usdc } = await issueDemoUsdc(seeding.deps, setup.app));
      users = await Promise.all(Array.from({ length: USERS }, () => signInUser(seeding, setup.creds)));
      for (const u of users) await untilFunded(seeding, u.signIn.wallet.walletId);
      const app = (await findApp(seeding.deps.db, setup.app.id))!;
      distributionKey = (await appWalletFor(seeding.deps.db, app.id, app.network, 'distribution'))!.publicKey;
      // Recorded while no runner can take it: the seeding service stops first.
      await seeding.stop();
      const push = await createPush(
        { db },
        app,
        { name: 'Crash airdrop', asset: usdc, amount: '1', recipients: { userIds: users.map((u) => u.userId) } },
        { actor: SYSTEM_ACTOR, at: new Date() },
      );
      pushId = push.pushId;
    } finally {
      stop();
    }
  });
  after(async () => {
    await restarted?.stop();
    await deployment?.stop();
  });

  async function usdcOf(address: string): Promise<bigint> {
    const [line] = await deployment.chain.trustlines(address, [usdc]);
    return line?.balanceStroops ?? 0n;
  }

  test('killed with payments queued: on restart every recipient is settled from the chain and paid exactly once', async () => {
    const { db, net, env, database, chain } = deployment;
    const distributionBefore = await usdcOf(distributionKey);
    const { child } = await deployment.startChild();
    // The child's runner takes the push; no ledger closes, so its payments wait in the queue.
    await eventually(
      'payments are recorded and queued on the chain',
      async () =>
        Number(
          (await db('distribution_push_recipients').where({ push_id: pushId, status: 'submitted' }).count())[0]!.count,
        ) > 0 && net.engine.pendingCount() > 0,
    );
    await killChild(child);
    // The network applies what was sent while no service is listening.
    await net.closeLedger();

    restarted = await startTestService(env, { database });
    const stop = closeLedgersEvery({ localnet: net }, 200);
    try {
      await eventually(
        'the restarted service completes the push',
        async () => (await db('distribution_pushes').where({ id: pushId }).first('status')).status === 'completed',
        90_000,
      );
    } finally {
      stop();
    }
    const rows = await db('distribution_push_recipients').where({ push_id: pushId });
    assert.deepEqual(
      rows.map((r) => r.status),
      rows.map(() => 'paid'),
      JSON.stringify(rows.map((r) => [r.status, r.failure_code])),
    );
    for (const r of rows) {
      assert.equal(
        (await chain.transactionDetails(r.tx_hash))?.status,
        'SUCCESS',
        `recipient ${r.position} is in a ledger`,
      );
    }
    for (const user of users) {
      assert.equal(await usdcOf(user.signIn.wallet.publicKey), AMOUNT_STROOPS, `${user.userId} was paid exactly once`);
    }
    assert.equal(
      distributionBefore - (await usdcOf(distributionKey)),
      BigInt(USERS) * AMOUNT_STROOPS,
      'the distribution wallet paid exactly the recipients',
    );
    const funded = await db('outbox_events').where({ type: 'wallet.funded' }).count();
    assert.equal(Number(funded[0]!.count), USERS, 'one wallet.funded per recipient');
  });
});
