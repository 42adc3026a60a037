// updateWebhookConfig (PUT /api/v1/apps/{appId}/webhooks): set the webhook endpoint. Shared set-up: setup.ts. The
// refused URLs (https only, public addresses only) are in tests/security/webhookSsrf.test.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { developer, getConfig, outsider, owner, putConfig, receiver, svc, teamApp, useService } from './setup';

describe('updateWebhookConfig', () => {
  useService();

  test('the first URL creates the secret, shown once; later updates keep it and never show it again', async () => {
    const appId = await teamApp();
    const first = await putConfig(owner, appId, {
      url: receiver.url,
      enabled: true,
      events: ['wallet.created', 'payment.received'],
    });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.code, 'WEBHOOK_CONFIG_UPDATED');
    assert.match(first.body.content.secret, /^whsec_[0-9A-Za-z+/]{43}=$/);
    assert.equal(first.body.content.secretPrefix, first.body.content.secret.slice(0, 12));
    const second = await putConfig(owner, appId, { url: receiver.url, enabled: false, events: ['stellar.tx'] });
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.content.secret, undefined);
    assert.equal(second.body.content.secretPrefix, first.body.content.secretPrefix);
    assert.deepEqual([second.body.content.enabled, second.body.content.events], [false, ['stellar.tx']]);
  });

  test('the secret is stored sealed: not in clear in any column', async () => {
    const appId = await teamApp();
    const set = await putConfig(owner, appId, { url: receiver.url, enabled: true, events: [] });
    const secret: string = set.body.content.secret;
    const row = await svc.deps.db('webhook_endpoints').where({ app_id: appId }).first();
    assert.ok(!JSON.stringify(row).includes(secret.slice('whsec_'.length)));
    assert.ok(!row.secret_sealed.toString('latin1').includes(secret));
  });

  test('null removes the URL (the secret stays for the next one); enabled without a URL is 400 on url', async () => {
    const appId = await teamApp();
    await putConfig(owner, appId, { url: receiver.url, enabled: true, events: [] });
    const removed = await putConfig(owner, appId, { url: null, enabled: false, events: [] });
    assert.equal(removed.status, 200, removed.text);
    assert.deepEqual([removed.body.content.url, removed.body.content.secretSet], [null, true]);
    const bad = await putConfig(owner, appId, { url: null, enabled: true, events: [] });
    assert.equal(bad.status, 400, bad.text);
    assert.deepEqual(bad.body.details.fieldErrors, { url: ['is required when enabled is true'] });
  });

  test('400 VALIDATION_ERROR for an unknown event type, a missing field or an extra one; nothing is stored', async () => {
    const appId = await teamApp();
    for (const body of [
      { url: receiver.url, enabled: true, events: ['wallet.deleted'] },
      { url: receiver.url, enabled: true },
      { url: receiver.url, enabled: true, events: [], secret: 'whsec_mine' },
    ]) {
      const res = await putConfig(owner, appId, body);
      assert.deepEqual([res.status, res.body.code], [400, 'VALIDATION_ERROR'], JSON.stringify(body));
    }
    assert.equal((await getConfig(owner, appId)).body.content.url, null);
  });

  test('any member may change it; each change is in the audit log as webhook.updated', async () => {
    const appId = await teamApp();
    const res = await putConfig(developer, appId, { url: receiver.url, enabled: true, events: ['stellar.tx'] });
    assert.equal(res.status, 200, res.text);
    const log = await owner.call('listAuditLog', 'GET', `/api/v1/apps/${appId}/audit-log?action=webhook.updated`);
    assert.equal(log.body.content.entries.length, 1);
    assert.deepEqual(log.body.content.entries[0].actor, { type: 'operator', id: developer.operatorId });
  });

  test("another operator's app: 404 APPLICATION_NOT_FOUND, and nothing changes", async () => {
    const appId = await teamApp();
    const res = await putConfig(outsider, appId, { url: receiver.url, enabled: true, events: [] });
    assert.deepEqual([res.status, res.body.code], [404, 'APPLICATION_NOT_FOUND']);
    assert.equal((await getConfig(owner, appId)).body.content.url, null);
  });

  test('asymmetricSignature: an Ed25519 public key is published (the same one each time it is on), null when off', async () => {
    const appId = await teamApp();
    const on = await putConfig(owner, appId, {
      url: receiver.url,
      enabled: true,
      events: [],
      asymmetricSignature: true,
    });
    assert.equal(on.status, 200, on.text);
    assert.equal(on.body.content.asymmetricSignature, true);
    assert.match(on.body.content.publicKey, /^whpk_[0-9A-Za-z+/]{43}=$/);
    const off = await putConfig(owner, appId, { url: receiver.url, enabled: true, events: [] });
    assert.deepEqual([off.body.content.asymmetricSignature, off.body.content.publicKey], [false, null]);
    const again = await putConfig(owner, appId, {
      url: receiver.url,
      enabled: true,
      events: [],
      asymmetricSignature: true,
    });
    assert.equal(again.body.content.publicKey, on.body.content.publicKey);
    assert.equal((await getConfig(developer, appId)).body.content.publicKey, on.body.content.publicKey);
  });
});
