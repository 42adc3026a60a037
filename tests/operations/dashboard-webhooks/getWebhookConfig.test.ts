// getWebhookConfig (GET /api/v1/apps/{appId}/webhooks): get the webhook endpoint settings. Shared set-up: setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { developer, getConfig, outsider, owner, putConfig, receiver, teamApp, useService } from './setup';

describe('getWebhookConfig', () => {
  useService();

  test('a new app: no URL, disabled, no events, no secret; how deliveries are signed', async () => {
    const appId = await teamApp();
    const res = await getConfig(owner, appId);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'WEBHOOK_CONFIG_FETCHED');
    const { signing, ...rest } = res.body.content;
    assert.deepEqual(rest, {
      url: null,
      enabled: false,
      events: [],
      secretSet: false,
      secretPrefix: null,
      disabledReason: null,
      asymmetricSignature: false,
      publicKey: null,
    });
    assert.deepEqual(
      signing.headers.map((h: { name: string }) => h.name),
      ['X-Service-Signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature'],
    );
    assert.equal(signing.toleranceSeconds, 300);
  });

  test('any member reads it; the secret itself is never in it, only its prefix', async () => {
    const appId = await teamApp();
    const set = await putConfig(owner, appId, { url: receiver.url, enabled: true, events: ['wallet.created'] });
    const secret: string = set.body.content.secret;
    const read = await getConfig(developer, appId);
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.content.secret, undefined);
    assert.ok(!read.text.includes(secret.slice('whsec_'.length)), 'no part of the secret past its prefix');
    assert.equal(read.body.content.secretPrefix, secret.slice(0, 12));
    assert.deepEqual([read.body.content.url, read.body.content.enabled], [receiver.url, true]);
  });

  test("another operator's app and an archived app: 404 APPLICATION_NOT_FOUND", async () => {
    const appId = await teamApp();
    const theirs = await getConfig(outsider, appId);
    assert.deepEqual([theirs.status, theirs.body.code], [404, 'APPLICATION_NOT_FOUND']);
    assert.equal((await owner.call('archiveApp', 'POST', `/api/v1/apps/${appId}/archive`)).status, 200);
    const archived = await getConfig(owner, appId);
    assert.deepEqual([archived.status, archived.body.code], [404, 'APPLICATION_NOT_FOUND']);
  });
});
