// listWebhookEvents (GET /api/v1/apps/{appId}/webhooks/events): the webhook event log. Shared set-up: setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  eventStatus,
  listEvents,
  outsider,
  owner,
  putConfig,
  receiver,
  recordEvent,
  teamApp,
  useService,
} from './setup';

describe('listWebhookEvents', () => {
  useService();

  test('every event newest first with its state and attempts; skipped when no endpoint wanted it', async () => {
    const appId = await teamApp();
    const skipped = await recordEvent(appId);
    await putConfig(owner, appId, { url: receiver.url, enabled: true, events: ['sponsor.balance.low'] });
    receiver.answer({ status: 200, body: 'thanks' });
    const delivered = await recordEvent(appId);
    await eventStatus(delivered, 'delivered');
    const res = await listEvents(owner, appId);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'WEBHOOK_EVENTS_LISTED');
    const { events, total, nextCursor } = res.body.content;
    assert.deepEqual(
      events.map((e: any) => [e.eventId, e.status]),
      [
        [delivered, 'delivered'],
        [skipped, 'skipped'],
      ],
    );
    assert.deepEqual([total, nextCursor], [2, null]);
    const [first] = events;
    assert.equal(first.event, 'sponsor.balance.low');
    assert.equal(first.attempts, 1);
    assert.deepEqual(
      first.attemptLog.map((a: any) => [a.attempt, a.statusCode, a.error, a.responseExcerpt]),
      [[1, 200, null, 'thanks']],
    );
    assert.ok(first.deliveredAt);
    assert.deepEqual(events[1].attemptLog, []);
  });

  test('filters by status and by type; offset and cursor paging walk the same events', async () => {
    const appId = await teamApp();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await recordEvent(appId));
    const skipped = await listEvents(owner, appId, '?status=skipped&event=sponsor.balance.low');
    assert.equal(skipped.body.content.total, 5);
    assert.equal((await listEvents(owner, appId, '?status=delivered')).body.content.total, 0);
    assert.equal((await listEvents(owner, appId, '?event=stellar.tx')).body.content.total, 0);
    const byOffset: string[] = [];
    for (let offset = 0; offset < 5; offset += 2)
      byOffset.push(
        ...(await listEvents(owner, appId, `?limit=2&offset=${offset}`)).body.content.events.map((e: any) => e.eventId),
      );
    const byCursor: string[] = [];
    let query = '?limit=2';
    for (;;) {
      const page = (await listEvents(owner, appId, query)).body.content;
      byCursor.push(...page.events.map((e: any) => e.eventId));
      if (!page.nextCursor) break;
      query = `?limit=2&cursor=${page.nextCursor}`;
    }
    assert.deepEqual(byCursor, byOffset);
    assert.deepEqual([...byCursor].sort(), [...ids].sort());
  });

  test("a cursor from another app's list: 400; a bad status: 400; another operator: 404", async () => {
    const [mine, other] = [await teamApp(), await teamApp()];
    for (let i = 0; i < 2; i++) await recordEvent(other);
    const cursor = (await listEvents(owner, other, '?limit=1')).body.content.nextCursor;
    const res = await listEvents(owner, mine, `?cursor=${cursor}`);
    assert.deepEqual([res.status, res.body.code], [400, 'INVALID_CURSOR']);
    const badStatus = await listEvents(owner, mine, '?status=lost');
    assert.deepEqual([badStatus.status, badStatus.body.code], [400, 'VALIDATION_ERROR']);
    const theirs = await listEvents(outsider, mine);
    assert.deepEqual([theirs.status, theirs.body.code], [404, 'APPLICATION_NOT_FOUND']);
  });
});
