// receiveRampWebhook (POST /v1/ramps/webhooks/{providerId}/{appId}) against the real service, every answer checked
// against the contract: a delivery signed with the app's Etherfuse webhook secret (signed as the local stand-in signs,
// tests/support/rampStandIns/etherfuse.ts) is received, and answers null for an event about no ramp of the app; a
// forged one 401; an unknown app, or an app without the provider's key, 404. (Deliveries that move ramps:
// tests/integration/ramps{Etherfuse,Bridge}.test.ts.)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SYSTEM_ACTOR } from '../../../src/domain/audit/auditLog';
import { updateRampSettings } from '../../../src/domain/ramps/settings';
import { postRampWebhook } from '../../support/ramps';
import { startEtherfuseStandIn, type EtherfuseStandIn } from '../../support/rampStandIns/etherfuse';
import { app, refused, svc, useRampsService } from './ramps.setup';

useRampsService();

const SECRET = Buffer.from('etherfuse-webhook-secret-for-tests').toString('base64');
let etherfuse: EtherfuseStandIn;
before(async () => {
  etherfuse = await startEtherfuseStandIn({ apiKey: 'ef-test-api-key', webhookSecret: SECRET });
});
after(async () => {
  await etherfuse?.close();
});

const event = {
  eventType: 'order_updated',
  order: { orderId: '3f0c2b9e-1d2a-4c55-9a51-7b0d9d2f1e10', status: 'completed' },
};

describe('receiveRampWebhook', () => {
  test('an app without Etherfuse, or without its webhook key: 404; then a good signature is received, a forged one 401', async () => {
    refused(
      await postRampWebhook(svc, 'etherfuse', app.id, etherfuse.signWebhook(event)),
      404,
      'SDK_RAMPS_PROVIDER_NOT_FOUND',
    );
    const save = (credentials: Record<string, string>) =>
      updateRampSettings(
        svc.deps,
        app,
        { providers: [{ providerId: 'etherfuse', enabled: true, assets: [], credentials }] },
        { actor: SYSTEM_ACTOR, at: new Date() },
      );
    await save({ apiKey: 'ef-test-api-key' });
    refused(
      await postRampWebhook(svc, 'etherfuse', app.id, etherfuse.signWebhook(event)),
      404,
      'SDK_RAMPS_PROVIDER_NOT_FOUND',
    );
    await save({ apiKey: 'ef-test-api-key', webhookSecret: SECRET });
    const received = await postRampWebhook(svc, 'etherfuse', app.id, etherfuse.signWebhook(event));
    assert.equal(received.status, 200, received.text);
    assert.equal(received.body.code, 'RAMP_WEBHOOK_RECEIVED');
    assert.deepEqual(received.body.content, { rampTxId: null }, 'no ramp of the app has this order');
    const forged = etherfuse.signWebhook(event, Buffer.from('another-secret').toString('base64'));
    refused(await postRampWebhook(svc, 'etherfuse', app.id, forged), 401, 'RAMP_WEBHOOK_SIGNATURE_INVALID');
  });

  test('an unknown app: 404 APPLICATION_NOT_FOUND; a malformed provider: 400', async () => {
    refused(
      await postRampWebhook(svc, 'etherfuse', 'app_doesnotexist1234', etherfuse.signWebhook(event)),
      404,
      'APPLICATION_NOT_FOUND',
    );
    refused(await postRampWebhook(svc, 'acme', app.id, etherfuse.signWebhook(event)), 400, 'VALIDATION_ERROR');
  });
});
