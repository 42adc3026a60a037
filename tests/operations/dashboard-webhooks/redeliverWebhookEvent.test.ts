// redeliverWebhookEvent (POST /api/v1/apps/{appId}/webhooks/events/{eventId}/redeliver): redeliver a webhook event.
// Shared set-up: setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  eventStatus,
  outsider,
  owner,
  putConfig,
  receiver,
  recordEvent,
  redeliver,
  teamApp,
  useService,
} from './setup';

describe('redeliverWebhookEvent', () => {
  useService();

  test('a failed event goes back to pending with 0 attempts and is sent at once with the same webhook-id', async () => {
    const appId = await teamApp();
    await putConfig(owner, appId, { url: receiver.url, enabled: true, events: ['sponsor.balance.low'] });
    receiver.answer({ status: 410 });
    const eventId = await recordEvent(appId);
    await eventStatus(eventId, 'failed');
    // 410 disabled the endpoint: enable it again, then redeliver.
    await putConfig(owner, appId, { url: receiver.url, enabled: true, events: ['sponsor.balance.low'] });
    receiver.answer({ status: 200 });
    const res = await redeliver(owner, appId, eventId);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'WEBHOOK_EVENT_REDELIVERY_QUEUED');
    assert.deepEqual([res.body.content.status, res.body.content.attempts], ['pending', 0]);
    await eventStatus(eventId, 'delivered');
    const mine = receiver.received.filter((d) => d.headers['webhook-id'] === eventId);
    assert.equal(mine.length, 2);
    assert.equal(mine[1]!.body, mine[0]!.body);
  });

  test('a skipped event is sent once an endpoint is configured', async () => {
    const appId = await teamApp();
    const eventId = await recordEvent(appId);
    await putConfig(owner, appId, { url: receiver.url, enabled: true, events: [] });
    receiver.answer({ status: 204 });
    assert.equal((await redeliver(owner, appId, eventId)).status, 200);
    await eventStatus(eventId, 'delivered');
  });

  test("no enabled endpoint: 409 WEBHOOK_NOT_CONFIGURED; unknown or another app's event: 404; another operator: 404", async () => {
    const [appId, other] = [await teamApp(), await teamApp()];
    const eventId = await recordEvent(appId);
    const none = await redeliver(owner, appId, eventId);
    assert.deepEqual([none.status, none.body.code], [409, 'WEBHOOK_NOT_CONFIGURED']);
    await putConfig(owner, appId, { url: receiver.url, enabled: false, events: [] });
    const disabled = await redeliver(owner, appId, eventId);
    assert.deepEqual([disabled.status, disabled.body.code], [409, 'WEBHOOK_NOT_CONFIGURED']);
    await putConfig(owner, appId, { url: receiver.url, enabled: true, events: [] });
    const unknown = await redeliver(owner, appId, 'evt_00000000000000000000000000');
    assert.deepEqual([unknown.status, unknown.body.code], [404, 'WEBHOOK_EVENT_NOT_FOUND']);
    const othersEvent = await recordEvent(other);
    const elsewhere = await redeliver(owner, appId, othersEvent);
    assert.deepEqual([elsewhere.status, elsewhere.body.code], [404, 'WEBHOOK_EVENT_NOT_FOUND']);
    const theirs = await redeliver(outsider, appId, eventId);
    assert.deepEqual([theirs.status, theirs.body.code], [404, 'APPLICATION_NOT_FOUND']);
  });
});
