// Fault: a worker process killed with SIGKILL in the middle of webhook deliveries, then started again. Every event is
// delivered (at least once, a duplicate carrying the same webhook-id and body), none is lost and none invented. The
// API process runs no jobs (WORKERS=off); the workers are real processes (`src/worker.ts`) on the same database. A
// killed attempt's job expires 16 s after it started (WEBHOOK_TIMEOUT_MS=1000 + 15 s) and runs again.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { SYSTEM_ACTOR } from '../../src/domain/audit/auditLog';
import { updateWebhookConfig } from '../../src/domain/webhooks/endpoints';
import { startTestService, type TestService } from '../support/service';
import { startWorkerProcess } from '../support/workerProcess';
import { appWithWallet, eventually } from '../support/funding';
import { recordLowBalanceEvent, startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver';

const EVENTS = 30;
let svc: TestService;
let receiver: WebhookReceiver;
const workers: ChildProcess[] = [];

before(async () => {
  svc = await startTestService({ WORKERS: 'off', WEBHOOK_ALLOW_INSECURE: 'on', WEBHOOK_TIMEOUT_MS: '1000' });
  receiver = await startWebhookReceiver();
});
after(async () => {
  for (const w of workers) if (w.exitCode === null) w.kill('SIGKILL');
  await receiver?.close();
  await svc?.stop();
});

/** A worker process on the test's database (webhooks only: the follower and the scan stay off). */
function startWorker(): ChildProcess {
  const worker = startWorkerProcess(svc, {
    LEDGER_FOLLOWER: 'off',
    SPONSOR_BALANCE_SCAN: 'off',
    WEBHOOK_ALLOW_INSECURE: 'on',
    WEBHOOK_TIMEOUT_MS: '1000',
  }).process;
  workers.push(worker);
  return worker;
}

// The killed attempts wait for their expiry, the supervisor's next pass (10 s) and a retry delay: longer than a test.
test(
  'kill -9 a worker mid-delivery, start another: every event arrives, none lost, none invented',
  { timeout: 240_000 },
  async () => {
    const t0 = Date.now();
    const { app } = await appWithWallet(svc, { funded: false });
    await updateWebhookConfig(svc.deps, {
      appId: app.id,
      url: receiver.url,
      enabled: true,
      events: ['sponsor.balance.low'],
      actor: SYSTEM_ACTOR,
      at: new Date(),
    });
    // Each answer takes 200 ms, so deliveries are in flight when the worker dies.
    receiver.answer({ status: 200, delayMs: 200 });
    const eventIds: string[] = [];
    for (let i = 0; i < EVENTS; i++) eventIds.push(await recordLowBalanceEvent(svc, app.id));

    const first = startWorker();
    await eventually('some deliveries arrived', async () => receiver.received.length >= 5, 60_000);
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const atKill = receiver.received.length;
    assert.ok(atKill < EVENTS, `the worker died mid-way (${atKill} of ${EVENTS} delivered)`);

    const killedAt = Date.now() - t0;
    startWorker();
    const delivered = async () =>
      Number(
        (
          await svc.deps.db('outbox_events').whereIn('id', eventIds).where({ status: 'delivered' }).count({ n: '*' })
        )[0]!.n,
      );
    await eventually('every event delivered', async () => (await delivered()) === EVENTS, 90_000);

    const ids = receiver.received.map((d) => String(d.headers['webhook-id']));
    assert.deepEqual([...new Set(ids)].sort(), [...eventIds].sort(), 'every event, and nothing else');
    for (const id of new Set(ids)) {
      const copies = receiver.received.filter((d) => d.headers['webhook-id'] === id);
      assert.equal(new Set(copies.map((c) => c.body)).size, 1, `${id}: duplicates carry the same body`);
    }
    const duplicates = ids.length - new Set(ids).size;
    console.log(
      `delivered ${EVENTS} events in ${ids.length} requests (${duplicates} duplicates); ${atKill} before the kill at ${killedAt} ms; all delivered by ${Date.now() - t0} ms`,
    );
  },
);
