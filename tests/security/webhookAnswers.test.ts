// Hostile webhook answers (an app's endpoint is outside the service): a body with NUL bytes and invalid UTF-8, a
// body of megabytes, a status no HTTP server may send, a Retry-After of years, an endpoint that never answers. Each
// attempt is recorded (the excerpt cut to 500 bytes and made storable), the event goes on by its schedule, the event
// log still answers per the contract: never a failed job or a stuck event.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { SYSTEM_ACTOR } from '../../src/domain/audit/auditLog';
import { updateWebhookConfig } from '../../src/domain/webhooks/endpoints';
import { listWebhookEvents } from '../../src/domain/webhooks/eventLog';
import { appWithWallet, eventually } from '../support/funding';
import { startTestService, type TestService } from '../support/service';
import { validatorAt } from '../support/spec';
import { recordLowBalanceEvent, startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver';

let svc: TestService;
let receiver: WebhookReceiver;
let appId: string;

before(async () => {
  svc = await startTestService({
    WEBHOOK_ALLOW_INSECURE: 'on',
    WEBHOOK_RETRY_SCHEDULE: '0,1',
    WEBHOOK_TIMEOUT_MS: '500',
  });
  receiver = await startWebhookReceiver();
  ({
    app: { id: appId },
  } = await appWithWallet(svc, { funded: false }));
  await updateWebhookConfig(svc.deps, {
    appId,
    url: receiver.url,
    enabled: true,
    events: ['sponsor.balance.low'],
    actor: SYSTEM_ACTOR,
    at: new Date(),
  });
});
after(async () => {
  await receiver?.close();
  await svc?.stop();
});

const row = (eventId: string) => svc.deps.db('outbox_events').where({ id: eventId }).first();
const attempts = (eventId: string) =>
  svc.deps.db('webhook_attempts').where({ event_id: eventId }).orderBy('id').select();

test('NUL bytes and invalid UTF-8 in a huge answer body: recorded as text of at most 500 bytes, delivered', async () => {
  const hostile = Buffer.concat([
    Buffer.from('ok\u0000\u0000'),
    Buffer.from([0xff, 0xfe, 0xc3]),
    Buffer.alloc(5 << 20, 0x41),
  ]);
  receiver.answer({ status: 200, body: hostile });
  const eventId = await recordLowBalanceEvent(svc, appId);
  await eventually('delivered', async () => (await row(eventId)).status === 'delivered');
  const [attempt] = await attempts(eventId);
  assert.equal(attempt.status_code, 200);
  assert.ok(!attempt.response_excerpt.includes('\u0000'), 'no NUL stored');
  assert.ok(Buffer.byteLength(attempt.response_excerpt) <= 500 * 3, 'cut near 500 bytes');
  assert.ok(attempt.response_excerpt.startsWith('ok'));
});

test('a status outside 100-599 and an endpoint that never answers: failed attempts, retried, then failed', async () => {
  receiver.answer({ status: 799, body: 'nonsense' }, { status: 200, delayMs: 2000 });
  const eventId = await recordLowBalanceEvent(svc, appId);
  await eventually('failed', async () => (await row(eventId)).status === 'failed', 15_000);
  const [first, second] = await attempts(eventId);
  assert.deepEqual([first.status_code, second.status_code], [null, null]);
  assert.match(first.error, /invalid HTTP status \(799\)/);
  assert.match(second.error, /no answer within 0\.5 s/);
});

test('a Retry-After of years waits at most 24 h; the event log still answers per the contract', async () => {
  receiver.answer({ status: 503, headers: { 'retry-after': '999999999' } });
  const eventId = await recordLowBalanceEvent(svc, appId);
  await eventually('one attempt', async () => (await attempts(eventId)).length === 1);
  const next = (await row(eventId)).next_attempt_at as Date;
  const hours = (next.getTime() - Date.now()) / 3_600_000;
  assert.ok(hours > 23 && hours <= 24, `next attempt in ${hours.toFixed(2)} h`);
  const page = await listWebhookEvents(svc.deps.db, { appId, limit: 20, offset: 0 });
  const validate = validatorAt('#/components/schemas/WebhookEventRecord');
  for (const event of JSON.parse(JSON.stringify(page.events)) as unknown[])
    assert.ok(validate(event), JSON.stringify(validate.errors));
});
