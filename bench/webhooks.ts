// Webhook delivery (issue 15): how soon the first attempt reaches the receiver after the event's transaction commits
// (goal: p95 < 1 s), and how many deliveries per second one service process makes to a local receiver, each against
// a floor measured in the same run: the same signed POST sent directly (no queue, no database) by the same code.
//   1. latency: BENCH_WEBHOOK_EVENTS (200) events, one every 50 ms, each in its own transaction.
//   2. throughput: BENCH_WEBHOOK_BURST (2000) events committed at once; time until the last is delivered.
import { cpus, totalmem } from 'node:os';
import { Keypair } from '@stellar/stellar-sdk';
import { createAppWithKeys } from '../src/cli/adminCommands';
import { SYSTEM_ACTOR } from '../src/domain/audit/auditLog';
import { recordOutboxEvent } from '../src/domain/events/outbox';
import { updateWebhookConfig } from '../src/domain/webhooks/endpoints';
import { signatureHeaders } from '../src/domain/webhooks/signing';
import { postOnce } from '../src/infra/egress/post';
import { startWebhookReceiver } from '../tests/support/webhookReceiver';
import { percentile, recordReport, sized, withService } from './support';

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? sized(200, 5));
const BURST = Number(process.env.BENCH_WEBHOOK_BURST ?? sized(2000, 20));
/** The delivery job's concurrency per process (src/jobs/registry.ts), used for the direct floor too. */
const CONCURRENCY = 8;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runWebhooks(): Promise<void> {
  const receiver = await startWebhookReceiver();
  const result = await withService('webhooks', { WEBHOOK_ALLOW_INSECURE: 'on', LOCALNET: 'off' }, async (svc) => {
    const { app } = await createAppWithKeys(svc.deps, {
      name: 'Bench',
      network: 'testnet',
      ownerEmail: 'bench@example.com',
      origins: [],
    });
    const { secret } = await updateWebhookConfig(svc.deps, {
      appId: app.id,
      url: receiver.url,
      enabled: true,
      events: ['stellar.tx'],
      actor: SYSTEM_ACTOR,
      at: new Date(),
    });
    const event = (trx: Parameters<typeof recordOutboxEvent>[1]) =>
      recordOutboxEvent(svc.deps, trx, {
        appId: app.id,
        type: 'stellar.tx',
        data: { hash: 'a'.repeat(64), ledger: 1, network: 'testnet', sourceAccount: Keypair.random().publicKey() },
        at: new Date(),
      });
    const arrivedAt = (id: string) => receiver.received.find((d) => d.headers['webhook-id'] === id)?.at;

    // 1. first-attempt latency after commit, against a direct signed POST
    const committed = new Map<string, number>();
    for (let i = 0; i < EVENTS; i++) {
      const id = await svc.deps.db.transaction((trx) => event(trx));
      committed.set(id, Date.now());
      await sleep(50);
    }
    while ([...committed.keys()].some((id) => arrivedAt(id) === undefined)) await sleep(50);
    const latencies = [...committed].map(([id, at]) => arrivedAt(id)! - at);
    // The floor: the same signed POST of an event, sent by the same egress code without queue or database.
    const postDirectly = async (eventId: string) => {
      const body = JSON.stringify({ id: eventId, event: 'stellar.tx', timestamp: new Date().toISOString(), data: {} });
      const headers = signatureHeaders({ current: secret! }, { eventId, timestamp: new Date(), body });
      return postOnce(receiver.url, body, headers, { timeoutMs: 10_000, policy: { allowInsecure: true } });
    };
    const direct: number[] = [];
    for (let i = 0; i < EVENTS; i++) direct.push((await postDirectly(`evt_direct${i}`)).latencyMs);

    // 2. throughput: a burst committed at once
    const before = receiver.received.length;
    const burstIds = await svc.deps.db.transaction(async (trx) => {
      const ids: string[] = [];
      for (let i = 0; i < BURST; i++) ids.push(await event(trx));
      return ids;
    });
    const burstStart = Date.now();
    while (receiver.received.length - before < BURST) await sleep(20);
    const burstSeconds = (Date.now() - burstStart) / 1000;
    const floorStart = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < BURST) {
          await postDirectly(`evt_floor${next++}`);
        }
      }),
    );
    const floorSeconds = (Date.now() - floorStart) / 1000;
    return { latencies, direct, burstSeconds, floorSeconds, burstIds: burstIds.length };
  });
  await receiver.close();

  const p = (values: number[], q: number) => percentile(values, q);
  const rate = BURST / result.burstSeconds;
  const floorRate = BURST / result.floorSeconds;
  console.log(
    `first attempt after commit: p50 ${p(result.latencies, 50)} ms, p95 ${p(result.latencies, 95)} ms; direct POST p50 ${p(result.direct, 50)} ms`,
  );
  console.log(`throughput: ${rate.toFixed(0)} deliveries/s vs ${floorRate.toFixed(0)} direct POSTs/s`);

  const date = new Date().toISOString().slice(0, 10);
  const report = [
    `# Webhook delivery: first-attempt latency after commit and deliveries per second (${date})`,
    '',
    'Command: `BENCH=webhooks make bench` (bench/webhooks.ts). The real service (startService: embedded PostgreSQL, the',
    'pg-boss job queue with LISTEN/NOTIFY, one process running API and workers) delivering `stellar.tx` events to a',
    'local HTTP receiver (WEBHOOK_ALLOW_INSECURE=on) that answers 200 at once. The floor is the same signed POST sent',
    'by the same egress code directly, in the same run: what is left is the queue and the database.',
    `Machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; receiver and load in the same process.`,
    '',
    '| measure | setting | result | floor (same run) | ratio |',
    '|---|---|---|---|---|',
    `| first attempt after commit, p50 | ${EVENTS} events, one every 50 ms | ${p(result.latencies, 50)} ms | ${p(result.direct, 50)} ms direct POST | ${(p(result.latencies, 50) / Math.max(1, p(result.direct, 50))).toFixed(1)}x |`,
    `| first attempt after commit, p95 (goal < 1000 ms) | same | ${p(result.latencies, 95)} ms | ${p(result.direct, 95)} ms | ${(p(result.latencies, 95) / Math.max(1, p(result.direct, 95))).toFixed(1)}x |`,
    `| first attempt after commit, max | same | ${Math.max(...result.latencies)} ms | ${Math.max(...result.direct)} ms | |`,
    `| deliveries per second | ${BURST} events committed at once, ${CONCURRENCY} in flight per process | ${rate.toFixed(0)}/s (${result.burstSeconds.toFixed(1)} s) | ${floorRate.toFixed(0)} POSTs/s (${CONCURRENCY} at a time) | ${(rate / floorRate).toFixed(2)} |`,
    '',
  ].join('\n');
  recordReport(`${date}-webhooks.md`, report);
}
