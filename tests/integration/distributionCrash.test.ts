// Distribution claims and a crash: the service runs as a real child process (`src/main.ts`) on a shared database and
// chain, takes a burst of claims, and is killed (SIGKILL) while payments wait in the ledger queue. The chain applies
// what was sent; a service started afterwards settles every claim from the chain (paid when its recorded envelope is
// in a ledger, released when it never was). Then the users claim again, to the end of the allocation. Throughout: no
// claim is paid twice, the allocation holds exactly, every user's balance on the ledger is what their paid claims say,
// and the distribution wallet moved by exactly the paid claims; and the app's bank check (tests/support/bankCheck.ts:
// every wallet funded once, every recorded fee the chain's, nothing submitted twice, no event lost) holds after each.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SYSTEM_ACTOR } from '../../src/domain/audit/auditLog';
import { findApp } from '../../src/domain/apps/store';
import { createRule } from '../../src/domain/distribution/rules';
import { issueDemoUsdc } from '../../src/domain/treasury/demoUsdc';
import { appWalletFor } from '../../src/domain/wallets/treasuryWallets';
import type { Db } from '../../src/infra/db/database';
import type { StellarGateway } from '../../src/infra/stellar/gateway';
import type { Localnet } from '../../src/localnet/index';
import { crashDeployment, killChild, type ChildService, type CrashDeployment } from '../support/childService';
import type { TestDatabase } from '../support/database';
import { bankCheck, untilSettled } from '../support/bankCheck';
import { appWithWallet, closeLedgersEvery, eventually, untilFunded } from '../support/funding';
import { sendWithProof } from '../support/operators';
import { startTestService, type TestService } from '../support/service';
import { signInUser, type UserClient } from '../support/users';

const USERS = 12;
const ALLOCATION = 16;
const AMOUNT_STROOPS = 10_000_000n; // 1 USDC

describe('distribution claims: crash with payments in flight', () => {
  let deployment: CrashDeployment;
  let net: Localnet;
  let chain: StellarGateway;
  let database: TestDatabase;
  let db: Db;
  let env: Record<string, string>;
  let users: UserClient[];
  let ruleId: string;
  let usdc: string;
  let distributionKey: string;
  let appId: string;
  let restarted: TestService | undefined;

  before(async () => {
    // A short payment window, so that an envelope that never applied is known dead within seconds. The payouts'
    // channel accounts are the activations' (in the single layout the distribution wallet is the funding wallet), so
    // they exist before the crash, as in a service that ran before; more would be created first, in a ledger that
    // only closes after the crash.
    deployment = await crashDeployment('distribution-crash', {
      ACTIVATION_TIMEOUT_SECONDS: '15',
      ACTIVATION_CHANNELS: '2',
      DISTRIBUTION_CHANNELS: '2',
    });
    ({ net, chain, database, db, env } = deployment);
    const seeding = await startTestService(env, { database });
    const stop = closeLedgersEvery({ localnet: net });
    try {
      const setup = await appWithWallet(seeding, { settings: { fundingMode: 'immediate' } });
      appId = setup.app.id;
      ({ asset: usdc } = await issueDemoUsdc(seeding.deps, setup.app));
      const app = (await findApp(seeding.deps.db, setup.app.id))!;
      users = await Promise.all(Array.from({ length: USERS }, () => signInUser(seeding, setup.creds)));
      for (const u of users) await untilFunded(seeding, u.signIn.wallet.walletId);
      const rule = await createRule(
        seeding.deps,
        app,
        {
          name: 'Crash reward',
          asset: usdc,
          amountPerClaim: '1',
          totalAllocation: ALLOCATION,
          rateLimit: { maxClaims: 2, periodSeconds: 3600 },
        },
        { actor: SYSTEM_ACTOR, at: new Date() },
      );
      ruleId = rule.id;
      distributionKey = (await appWalletFor(seeding.deps.db, app.id, app.network, 'distribution'))!.publicKey;
    } finally {
      stop();
      await seeding.stop();
    }
  });
  after(async () => {
    await restarted?.stop();
    await deployment?.stop();
  });

  /** `make run`'s entry point as a process of its own on the shared database, chain and data directory. */
  const startChild = (): Promise<ChildService> => deployment.startChild();

  const claimOn = (url: string, user: UserClient) =>
    sendWithProof(url, user.key, {}, 'POST', `/v1/distribution/rules/${ruleId}/claim`, {
      headers: { 'x-service-api-key': user.publishableKey },
      accessToken: user.accessToken,
    }).catch(() => undefined);

  async function usdcOf(address: string): Promise<bigint> {
    const [line] = await chain.trustlines(address, [usdc]);
    return line?.balanceStroops ?? 0n;
  }

  /** The bank check: the database, the chain and the allocation agree. */
  async function ledgerCheck(distributionBefore: bigint): Promise<{ paid: number }> {
    const rows = await db('distribution_claims').where({ rule_id: ruleId });
    assert.equal(
      rows.filter((r) => r.status === 'reserved' || r.status === 'submitted').length,
      0,
      'every claim settled',
    );
    const paid = rows.filter((r) => r.status === 'paid');
    const rule = await db('distribution_rules').where({ id: ruleId }).first('claimed_count');
    assert.equal(rule.claimed_count, paid.length, 'the allocation counts exactly the paid claims');
    assert.ok(paid.length <= ALLOCATION);
    for (const claim of paid) {
      const details = await chain.transactionDetails(claim.tx_hash);
      assert.equal(details?.status, 'SUCCESS', `paid claim ${claim.id} is in a ledger`);
    }
    for (const claim of rows.filter((r) => r.status === 'released' && r.tx_hash)) {
      assert.notEqual(
        (await chain.transactionDetails(claim.tx_hash))?.status,
        'SUCCESS',
        'a released claim never applied',
      );
    }
    for (const user of users) {
      const mine = paid.filter((r) => r.user_id === user.userId).length;
      assert.ok(mine <= 2, 'the rate limit held');
      assert.equal(await usdcOf(user.signIn.wallet.publicKey), BigInt(mine) * AMOUNT_STROOPS, user.userId);
    }
    assert.equal(
      distributionBefore - (await usdcOf(distributionKey)),
      BigInt(paid.length) * AMOUNT_STROOPS,
      'the distribution wallet paid exactly the paid claims',
    );
    return { paid: paid.length };
  }

  test('killed with payments queued: on restart every claim is settled from the chain; claiming again stays exact', async () => {
    const distributionBefore = await usdcOf(distributionKey);
    const { child, url } = await startChild();
    // A burst: every user claims once through the child. No ledger closes, so the payments wait in the queue.
    const answers = Promise.all(users.map((u) => claimOn(url, u)));
    await eventually(
      'payments are recorded and queued on the chain',
      async () =>
        Number((await db('distribution_claims').where({ rule_id: ruleId, status: 'submitted' }).count())[0]!.count) >
          0 && net.engine.pendingCount() > 0,
    );
    await killChild(child);
    await answers;
    // The network applies what was sent while no service is listening.
    await net.closeLedger();

    restarted = await startTestService(env, { database });
    const stop = closeLedgersEvery({ localnet: net }, 200);
    try {
      await eventually(
        'the restarted service settles every claim',
        async () =>
          Number(
            (
              await db('distribution_claims')
                .where({ rule_id: ruleId })
                .whereIn('status', ['reserved', 'submitted'])
                .count()
            )[0]!.count,
          ) === 0,
        60_000,
      );
      const first = await ledgerCheck(distributionBefore);
      assert.ok(first.paid > 0, 'some payments had been sent before the crash');
      await untilSettled(db, appId);
      await bankCheck(db, chain, appId);

      // Everyone claims twice more (the rate limit allows 2 per user): the allocation ends exactly.
      const more = await Promise.all(users.flatMap((u) => [claimOn(restarted!.url, u), claimOn(restarted!.url, u)]));
      assert.ok(more.every((r) => r !== undefined));
      const final = await ledgerCheck(distributionBefore);
      assert.equal(final.paid, ALLOCATION, 'the allocation is used up exactly');
      await untilSettled(db, appId);
      const bank = await bankCheck(db, chain, appId);
      assert.equal(bank.walletsFunded, USERS);
    } finally {
      stop();
    }
  });
});
