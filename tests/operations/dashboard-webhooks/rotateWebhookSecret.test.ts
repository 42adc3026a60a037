// rotateWebhookSecret (POST /api/v1/apps/{appId}/webhooks/secret/rotate): rotate the webhook signing secret. Shared
// set-up: setup.ts. That deliveries carry both signatures during the overlap is in tests/integration/webhookDelivery.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { getConfig, outsider, owner, putConfig, receiver, rotate, teamApp, useService } from './setup';

describe('rotateWebhookSecret', () => {
  useService();

  test('a new secret, shown once; the old one signs until now + overlapSeconds (default one day)', async () => {
    const appId = await teamApp();
    const first = await putConfig(owner, appId, { url: receiver.url, enabled: true, events: [] });
    const before = Date.now();
    const res = await rotate(owner, appId);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'WEBHOOK_SECRET_ROTATED');
    assert.match(res.body.content.secret, /^whsec_[0-9A-Za-z+/]{43}=$/);
    assert.notEqual(res.body.content.secret, first.body.content.secret);
    const expires = Date.parse(res.body.content.previousSecretExpiresAt);
    assert.ok(Math.abs(expires - (before + 86_400_000)) < 10_000, 'a day from now');
    assert.equal((await getConfig(owner, appId)).body.content.secretPrefix, res.body.content.secret.slice(0, 12));
    const short = await rotate(owner, appId, { overlapSeconds: 60 });
    assert.ok(Math.abs(Date.parse(short.body.content.previousSecretExpiresAt) - (Date.now() + 60_000)) < 10_000);
  });

  test('overlapSeconds 0 ends the old secret at once (previousSecretExpiresAt null); audited', async () => {
    const appId = await teamApp();
    await putConfig(owner, appId, { url: receiver.url, enabled: true, events: [] });
    const res = await rotate(owner, appId, { overlapSeconds: 0 });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.content.previousSecretExpiresAt, null);
    const log = await owner.call(
      'listAuditLog',
      'GET',
      `/api/v1/apps/${appId}/audit-log?action=webhook.secret_rotated`,
    );
    assert.equal(log.body.content.entries.length, 1);
  });

  test('no URL configured: 409 WEBHOOK_NOT_CONFIGURED; overlap out of range: 400; another operator: 404', async () => {
    const appId = await teamApp();
    const none = await rotate(owner, appId);
    assert.deepEqual([none.status, none.body.code], [409, 'WEBHOOK_NOT_CONFIGURED']);
    await putConfig(owner, appId, { url: receiver.url, enabled: true, events: [] });
    const tooLong = await rotate(owner, appId, { overlapSeconds: 604_801 });
    assert.deepEqual([tooLong.status, tooLong.body.code], [400, 'VALIDATION_ERROR']);
    const theirs = await rotate(outsider, appId);
    assert.deepEqual([theirs.status, theirs.body.code], [404, 'APPLICATION_NOT_FOUND']);
  });
});
