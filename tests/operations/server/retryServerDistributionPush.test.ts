// retryServerDistributionPush (POST /v1/distribution-pushes/{pushId}/retry): the failed recipients of a push of the
// key's app back to pending, audited with the key as actor; the service's push runner (running here as under `make
// run`) sends them again. On the localnet: a wallet not activated fails, is activated through fundWallet, and the
// retry pays it. Set-up in distributionPushes.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call } from '../../support/http';
import { appWithWallet, closeLedgersEvery, userWallet } from '../../support/funding';
import {
  auditOf,
  keyApp,
  keyAppUser,
  listRecipients,
  newPush,
  retryPush,
  svc,
  untilCompleted,
  useService,
} from './distributionPushes.setup';

describe('retryServerDistributionPush', () => {
  useService();

  test('localnet: failed WALLET_NOT_FUNDED; activated through fundWallet, a retry (200 SERVER_DISTRIBUTION_PUSH_RETRIED) pays it; audited with the key', async () => {
    const stopClosing = closeLedgersEvery(svc);
    try {
      const { creds, app } = await appWithWallet(svc);
      const wallet = await userWallet(svc, app);
      const created = await newPush(creds.secretKey, { userIds: [wallet.userId!] }, { amount: '2' });
      const failed = await untilCompleted(creds.secretKey, created.pushId);
      assert.deepEqual([failed.counts.failed, failed.counts.paid], [1, 0]);

      const funded = await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', {
        headers: { 'x-service-api-key': creds.secretKey },
        body: { publicKey: wallet.publicKey },
      });
      assert.equal(funded.status, 200, funded.text);
      const res = await retryPush(creds.secretKey, created.pushId);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.code, 'SERVER_DISTRIBUTION_PUSH_RETRIED');
      assert.deepEqual(
        [res.body.content.retried, res.body.content.push.status, res.body.content.push.counts.failed],
        [1, 'running', 0],
      );
      const [audited] = await auditOf(app.id, 'distribution_push.retried');
      assert.deepEqual(
        [audited?.actor_type, audited?.actor_id, audited?.details],
        ['api_key', creds.secretKeyId, { pushId: created.pushId, recipients: 1 }],
      );

      const paid = await untilCompleted(creds.secretKey, created.pushId);
      assert.deepEqual([paid.counts.paid, paid.counts.failed, paid.paidAmount], [1, 0, '2']);
      const [recipient] = (await listRecipients(creds.secretKey, created.pushId)).body.content.recipients;
      assert.deepEqual([recipient.status, recipient.failureCode], ['paid', null]);
      assert.match(recipient.txHash, /^[0-9a-f]{64}$/);
    } finally {
      stopClosing();
    }
  });

  test('nothing failed: retried 0, not audited', async () => {
    const creds = await keyApp();
    const push = await newPush(creds.secretKey, { externalIds: ['nobody'] });
    const res = await retryPush(creds.secretKey, push.pushId);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.content, { push, retried: 0 });
    assert.equal((await auditOf(creds.app.id, 'distribution_push.retried')).length, 0);
  });

  test('404 DISTRIBUTION_PUSH_NOT_FOUND for an unknown push and another app\u2019s (its failed recipient stays failed); 401 without a key; 403 with the publishable key', async () => {
    const creds = await keyApp();
    const other = await keyApp();
    const theirs = await newPush(other.secretKey, { userIds: [(await keyAppUser(other)).userId] });
    assert.equal((await untilCompleted(other.secretKey, theirs.pushId)).counts.failed, 1);
    for (const pushId of ['dps_0000000000000000000000', theirs.pushId]) {
      const res = await retryPush(creds.secretKey, pushId);
      assert.deepEqual([res.status, res.body.code], [404, 'DISTRIBUTION_PUSH_NOT_FOUND'], res.text);
    }
    const wrongType = await retryPush(other.publishableKey, theirs.pushId);
    assert.deepEqual([wrongType.status, wrongType.body.code], [403, 'API_KEY_TYPE_NOT_ALLOWED']);
    const none = await retryPush('', theirs.pushId);
    assert.equal(none.status, 401, none.text);
    assert.equal(
      (await listRecipients(other.secretKey, theirs.pushId, { status: 'failed' })).body.content.recipients.length,
      1,
    );
    assert.equal((await auditOf(other.app.id, 'distribution_push.retried')).length, 0);
  });
});
