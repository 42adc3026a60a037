// A fault test of issue 22: an API process (`src/main.ts` as a child process on a shared database and chain) is killed
// with SIGKILL while users' runTransaction requests are in flight: some recorded and not yet sent, some sent and
// waiting in the ledger queue. The chain applies what was sent; a service started afterwards settles every record
// from the chain (applied, or resent, or expired), and the bank check (tests/support/bankCheck.ts) holds: every wallet
// funded once, every recorded fee the fee charged, no transaction applied twice or unknown, no event lost. Then the
// same users pay again through the new service, and the bank check holds again.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CLAIM_TIMEOUT_MS } from '../../src/domain/transactions/submission';
import { bankCheck, payingUsers } from '../support/bankCheck';
import { crashDeployment, killChild, type CrashDeployment } from '../support/childService';
import { closeLedgersEvery, eventually } from '../support/funding';
import { sendWithProof } from '../support/operators';
import { startTestService, type TestService } from '../support/service';
import type { UserClient } from '../support/users';

const USERS = 6;
const RUNS_PER_USER = 3;

describe('fault: an API process killed with transactions in flight', () => {
  let deployment: CrashDeployment;
  let users: UserClient[];
  let appId: string;
  let destination: string;
  let restarted: TestService | undefined;

  before(async () => {
    deployment = await crashDeployment('tx-crash', { TX_CONFIRM_INTERVAL_MS: '200' });
    const { database, env, net } = deployment;
    const seeding = await startTestService(env, { database });
    const stop = closeLedgersEvery({ localnet: net });
    try {
      ({ appId, users, destination } = await payingUsers(seeding, USERS));
    } finally {
      stop();
      await seeding.stop();
    }
  });
  after(async () => {
    await restarted?.stop();
    await deployment?.stop();
  });

  /** What each run was answered, for a failure's message. */
  const answered: string[] = [];
  const run = (url: string, user: UserClient, i: number) =>
    sendWithProof(url, user.key, user.state, 'POST', '/v1/tx/run', {
      headers: { 'x-service-api-key': user.publishableKey },
      accessToken: user.accessToken,
      // A short time bound, so that a record never sent is known dead soon after the restart (not under 2 ledger
      // closes, 10 s here: the RPC refuses a bound it cannot meet, tx_too_late, as stellar-core does).
      body: {
        operation: { type: 'payment', destination, asset: 'native', amount: `0.${String(i + 1).padStart(7, '0')}` },
        timeoutSeconds: 30,
      },
    })
      .then((res) => {
        answered.push(`${res.status} ${res.body?.code ?? res.body?.content?.status ?? ''}`);
        return res;
      })
      .catch((err: unknown) => {
        answered.push(`no answer (${err instanceof Error ? err.message : String(err)})`);
        return undefined;
      });

  test('killed with runs in flight: the restarted service settles every record from the chain; the bank check holds', async () => {
    const { db, net, chain, env, database } = deployment;
    const { child, url } = await deployment.startChild();
    // No ledger closes: the runs that reach the chain wait in its queue, the others wait for their turn.
    const answers = Promise.all(users.flatMap((u) => Array.from({ length: RUNS_PER_USER }, (_, i) => run(url, u, i))));
    try {
      await eventually(
        'runs are recorded and some are queued on the chain',
        async () =>
          Number(
            (
              await db('transactions')
                .where({ app_id: appId, stage: 'submitted' })
                .whereNot({ origin: 'activation' })
                .count()
            )[0]!.count,
          ) >= USERS && net.engine.pendingCount() > 0,
        60_000,
      );
    } catch (err) {
      throw new Error(`${(err as Error).message}; answers so far: ${answered.join(', ') || 'none'}`, { cause: err });
    }
    const queuedAtKill = net.engine.pendingCount();
    await killChild(child);
    await answers;
    // The network applies what was sent while no service listens.
    await net.closeLedger();

    restarted = await startTestService(env, { database });
    const stop = closeLedgersEvery({ localnet: net });
    try {
      await eventually(
        'every record is settled',
        async () =>
          Number(
            (
              await db('transactions')
                .where({ app_id: appId })
                .whereIn('stage', ['built', 'signed', 'submitted'])
                .whereNot({ origin: 'activation' })
                .count()
            )[0]!.count,
          ) === 0,
        // A dead request's records are the worker's once their claim times out (CLAIM_TIMEOUT_MS from the claim),
        // and one never sent is dead after its time bound (30 s) and its grace.
        CLAIM_TIMEOUT_MS + 30_000,
      );
    } finally {
      stop();
    }
    const report = await bankCheck(db, chain, appId);
    assert.equal(report.walletsFunded, USERS);
    // What was on its way to the ledger when the process died is applied and recorded; what was not expired unsent.
    assert.ok(
      report.transactionsApplied >= queuedAtKill,
      `${report.transactionsApplied} applied, ${queuedAtKill} queued`,
    );
    assert.ok(report.transactionsApplied + report.transactionsRefused >= USERS);
  });

  test('the same users pay again through the new service; the bank check still holds', async () => {
    const { db, net, chain } = deployment;
    const before = await bankCheck(db, chain, appId);
    const stop = closeLedgersEvery({ localnet: net });
    try {
      const url = restarted!.url;
      const answers = await Promise.all(users.map((u) => run(url, u, 7)));
      for (const a of answers) assert.equal(a?.status, 200, a?.text);
    } finally {
      stop();
    }
    const after = await bankCheck(db, chain, appId);
    assert.equal(after.transactionsApplied, before.transactionsApplied + USERS);
    assert.ok(after.feesStroops > before.feesStroops);
  });

  test('the bank check catches what it is for: a fee recorded one stroop off, an applied record missing', async () => {
    const { db, chain } = deployment;
    const [paid] = await db('transactions')
      .where({ app_id: appId, status: 'SUCCESS' })
      .whereNot({ origin: 'activation' })
      .select('id', 'fee_stroops', 'stage');
    assert.ok(paid);
    await db('transactions')
      .where({ id: paid.id })
      .update({ fee_stroops: String(BigInt(paid.fee_stroops) + 1n) });
    await assert.rejects(bankCheck(db, chain, appId), /the fee recorded is the fee charged/);
    await db('transactions').where({ id: paid.id }).update({ fee_stroops: paid.fee_stroops, stage: 'denied' });
    await assert.rejects(bankCheck(db, chain, appId), /is not one of its applied records/);
    await db('transactions').where({ id: paid.id }).update({ stage: paid.stage });
    await bankCheck(db, chain, appId);
  });
});
