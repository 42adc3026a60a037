// getServerDistributionPush (GET /v1/distribution-pushes/{pushId}): a push of the key's app with its progress, as the
// service's push runner (running here as under `make run`) moves it; another app's push is not found. Set-up in
// distributionPushes.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  getPush,
  keyApp,
  keyAppUser,
  listRecipients,
  newPush,
  untilCompleted,
  useService,
} from './distributionPushes.setup';

describe('getServerDistributionPush', () => {
  useService();

  test('200 SERVER_DISTRIBUTION_PUSH_FETCHED: followed until completed; a wallet not activated is failed WALLET_NOT_FUNDED', async () => {
    const creds = await keyApp();
    const ada = await keyAppUser(creds);
    const created = await newPush(creds.secretKey, { userIds: [ada.userId], externalIds: ['nobody'] }, { amount: '7' });
    const res = await getPush(creds.secretKey, created.pushId);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'SERVER_DISTRIBUTION_PUSH_FETCHED');
    assert.deepEqual(
      [res.body.content.pushId, res.body.content.amount, res.body.content.createdAt],
      [created.pushId, '7', created.createdAt],
    );
    const push = await untilCompleted(creds.secretKey, created.pushId);
    assert.deepEqual(
      [push.counts, push.paidAmount],
      [{ total: 2, pending: 0, submitted: 0, paid: 0, failed: 1, skipped: 1 }, '0'],
    );
    assert.ok(Date.parse(push.completedAt) >= Date.parse(push.createdAt));
    const [recipient] = (await listRecipients(creds.secretKey, created.pushId, { status: 'failed' })).body.content
      .recipients;
    assert.deepEqual([recipient.userId, recipient.failureCode], [ada.userId, 'WALLET_NOT_FUNDED']);
  });

  test('404 DISTRIBUTION_PUSH_NOT_FOUND for an unknown push and another app\u2019s; 400 a malformed pushId', async () => {
    const creds = await keyApp();
    const other = await keyApp();
    const theirs = await newPush(other.secretKey, { externalIds: ['x'] });
    for (const pushId of ['dps_0000000000000000000000', theirs.pushId]) {
      const res = await getPush(creds.secretKey, pushId);
      assert.deepEqual([res.status, res.body.code], [404, 'DISTRIBUTION_PUSH_NOT_FOUND'], res.text);
    }
    assert.equal((await getPush(other.secretKey, theirs.pushId)).status, 200);
    const malformed = await getPush(creds.secretKey, 'dst_0000000000000000000000');
    assert.equal(malformed.status, 400, malformed.text);
    assert.ok(malformed.body.details.fieldErrors['path.pushId'], malformed.text);
  });

  test('401 without a key; 403 with the publishable key', async () => {
    const creds = await keyApp();
    const push = await newPush(creds.secretKey, { externalIds: ['x'] });
    const wrongType = await getPush(creds.publishableKey, push.pushId);
    assert.deepEqual([wrongType.status, wrongType.body.code], [403, 'API_KEY_TYPE_NOT_ALLOWED']);
    const none = await getPush('', push.pushId);
    assert.equal(none.status, 401, none.text);
  });
});
