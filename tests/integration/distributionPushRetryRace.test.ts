// A push retried at the moment the push runner completes it. The retry locks the push, puts its failed recipients
// back to pending and commits while the runner's completion step waits for that lock: the push must stay `running`,
// for a pass to send them again, not be marked `completed` with recipients pending that no pass would ever take.
// The service runs no jobs (WORKERS=off): the test runs the passes itself, and orders the two lock waiters (the
// retry's request first, then the pass) by watching pg_stat_activity. Everything else goes through the Server API.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runPushPass } from '../../src/domain/distribution/pushRunner';
import { ensureAppWallet } from '../../src/domain/wallets/appWallets';
import { seedCredentials, type SeededCredentials } from '../support/credentials';
import { eventually, userWallet } from '../support/funding';
import { call } from '../support/http';
import { startTestService, type TestService } from '../support/service';

describe('distribution push: a retry committed while the runner completes the push', () => {
  let svc: TestService;
  let creds: SeededCredentials;
  before(async () => {
    svc = await startTestService({ WORKERS: 'off' });
    creds = await seedCredentials(svc.deps.db);
    await ensureAppWallet(svc.deps, { app: creds.app, role: 'global' });
  });
  after(async () => {
    await svc?.stop();
  });

  const headers = () => ({ 'x-service-api-key': creds.secretKey });
  const getPush = (pushId: string) =>
    call(svc.url, 'getServerDistributionPush', 'GET', `/v1/distribution-pushes/${pushId}`, { headers: headers() });

  /** Backends of this database waiting for a lock. */
  const lockWaiters = async (): Promise<number> =>
    (
      await svc.deps.db.raw(
        `select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`,
      )
    ).rows[0].n;

  test('the push stays running with the retried recipient pending, and the next pass settles it', async () => {
    const db = svc.deps.db;
    const wallet = await userWallet(svc, creds.app); // not activated: each pass fails it WALLET_NOT_FUNDED
    const created = await call(svc.url, 'createServerDistributionPush', 'POST', '/v1/distribution-pushes', {
      headers: headers(),
      body: { asset: 'native', amount: '1', recipients: { userIds: [wallet.userId] } },
    });
    assert.equal(created.status, 201, created.text);
    const { pushId } = created.body.content;
    await runPushPass(svc.deps);
    const failed = (await getPush(pushId)).body.content;
    assert.deepEqual([failed.status, failed.counts.failed], ['completed', 1]);

    // As a pass leaves a push the moment it settled its last open recipient: running, nothing open. The test holds
    // the push's row lock, so that the retry and then the completion step queue behind it, in that order.
    await db('distribution_pushes').where({ id: pushId }).update({ status: 'running', completed_at: null });
    const gate = await db.transaction();
    await gate('distribution_pushes').where({ id: pushId }).forUpdate().first('id');
    const retry = call(svc.url, 'retryServerDistributionPush', 'POST', `/v1/distribution-pushes/${pushId}/retry`, {
      headers: headers(),
    });
    await eventually('the retry waits for the push', async () => (await lockWaiters()) === 1, 10_000);
    const pass = runPushPass(svc.deps);
    await eventually('the pass waits for the push too', async () => (await lockWaiters()) === 2, 10_000);
    await gate.commit();
    const retried = await retry;
    await pass;
    assert.equal(retried.status, 200, retried.text);
    assert.equal(retried.body.content.retried, 1);

    const read = (await getPush(pushId)).body.content;
    assert.deepEqual(
      [read.status, read.completedAt, read.counts.pending, read.counts.failed],
      ['running', null, 1, 0],
      'not completed with a recipient pending',
    );
    await runPushPass(svc.deps);
    const settled = (await getPush(pushId)).body.content;
    assert.deepEqual([settled.status, settled.counts.failed, settled.counts.pending], ['completed', 1, 0]);
  });
});
