// retryDistributionPush (POST /api/v1/apps/{appId}/distribution/pushes/{pushId}/retry): a push's failed recipients go
// back to pending and the push is `running` again, for the service's push runner (which runs here as under `make
// run`) to send them again; skipped ones never are; audited when any was. On the localnet: a wallet not activated
// fails WALLET_NOT_FUNDED, is funded with the Dashboard's Fund action, and the retry pays it. Every outcome is read by
// polling the API. Set-up in setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appWithWallet, closeLedgersEvery, gatewayOf } from '../../support/funding';
import { signInOperator, type OperatorClient } from '../../support/operators';
import { signInUser } from '../../support/users';
import {
  anonymous,
  appUser,
  auditOf,
  developer,
  listRecipients,
  newPush,
  outsider,
  owner,
  pushesPath,
  retryPush,
  svc,
  teamApp,
  untilCompleted,
  useService,
} from './setup';

const fund = (client: OperatorClient, appId: string, userId: string) =>
  client.call('fundAppUserWallet', 'POST', `/api/v1/apps/${appId}/users/${userId}/wallet/fund`);

describe('retryDistributionPush', () => {
  useService();

  test('localnet: a wallet not activated fails WALLET_NOT_FUNDED; funded, a retry sends it again and it is paid; audited', async () => {
    const stopClosing = closeLedgersEvery(svc);
    try {
      const { creds, app } = await appWithWallet(svc, { settings: { fundingMode: 'deferred' } });
      const appOwner = await signInOperator(svc, creds.operator.email!);
      const [ada, bob] = [await signInUser(svc, creds), await signInUser(svc, creds)];
      assert.equal(ada.signIn.wallet.funded, false, 'deferred funding: not activated at sign-in');
      assert.equal((await fund(appOwner, app.id, bob.userId)).status, 200);

      const created = await newPush(
        app.id,
        { userIds: [ada.userId, bob.userId], externalIds: ['nobody'] },
        { name: 'Retry airdrop' },
        appOwner,
      );
      const first = await untilCompleted(appOwner, app.id, created.pushId);
      assert.deepEqual(first.counts, { total: 3, pending: 0, submitted: 0, paid: 1, failed: 1, skipped: 1 });
      const failed = await listRecipients(appOwner, app.id, created.pushId, { status: 'failed' });
      assert.deepEqual(
        failed.body.content.recipients.map((r: any) => [r.userId, r.failureCode, r.txHash]),
        [[ada.userId, 'WALLET_NOT_FUNDED', null]],
      );

      assert.equal((await fund(appOwner, app.id, ada.userId)).status, 200);
      const res = await retryPush(appOwner, app.id, created.pushId);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.code, 'DISTRIBUTION_PUSH_RETRIED');
      const { push, retried } = res.body.content;
      assert.equal(retried, 1);
      assert.deepEqual([push.pushId, push.status, push.completedAt], [created.pushId, 'running', null]);
      // the retried recipient is open again (pending, or already sent by the runner); nothing failed, the rest as it was
      assert.deepEqual(
        [push.counts.pending + push.counts.submitted, push.counts.failed, push.counts.skipped, push.counts.total],
        [1, 0, 1, 3],
      );
      const audited = await auditOf(app.id, 'distribution_push.retried');
      assert.deepEqual(
        audited.map((a) => [a.actor_type, a.actor_id, a.details]),
        [['operator', appOwner.operatorId, { pushId: created.pushId, recipients: 1 }]],
      );

      const paid = await untilCompleted(appOwner, app.id, created.pushId);
      assert.deepEqual(
        [paid.counts, paid.paidAmount],
        [{ total: 3, pending: 0, submitted: 0, paid: 2, failed: 0, skipped: 1 }, '2'],
      );
      assert.ok(Date.parse(paid.completedAt) > Date.parse(first.completedAt));
      const recipients = (await listRecipients(appOwner, app.id, created.pushId)).body.content.recipients;
      assert.deepEqual(
        recipients.map((r: any) => [r.recipient.value, r.status, r.failureCode]),
        [
          [ada.userId, 'paid', null],
          [bob.userId, 'paid', null],
          ['nobody', 'skipped', 'RECIPIENT_NOT_FOUND'],
        ],
      );
      assert.equal((await gatewayOf(svc).transactionDetails(recipients[0].txHash))?.status, 'SUCCESS');
      assert.equal((await gatewayOf(svc).loadAccount(ada.signIn.wallet.publicKey))?.balanceStroops, 10_000_000n);
      const funded = await svc.deps
        .db('outbox_events')
        .where({ app_id: app.id, type: 'wallet.funded' })
        .whereRaw(`data->>'walletId' = ?`, [ada.signIn.wallet.walletId]);
      assert.equal(funded.length, 1, 'one wallet.funded for the retried payment');

      // nothing failed now: answered as it stands, not audited again
      const again = await retryPush(appOwner, app.id, created.pushId);
      assert.equal(again.status, 200, again.text);
      assert.deepEqual(again.body.content, { push: paid, retried: 0 });
      assert.equal((await auditOf(app.id, 'distribution_push.retried')).length, 1);
    } finally {
      stopClosing();
    }
  });

  test('nothing failed: retried 0, the push as it stands (skipped recipients are never sent); not audited', async () => {
    const appId = await teamApp();
    const push = await newPush(appId, { externalIds: ['nobody'], userIds: ['usr_NoSuchUser000000000000'] });
    const res = await retryPush(developer, appId, push.pushId);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { content: { push, retried: 0 }, code: 'DISTRIBUTION_PUSH_RETRIED', success: true });
    assert.equal((await auditOf(appId, 'distribution_push.retried')).length, 0);
  });

  test('Idempotency-Key: a repeated retry is replayed, not run again (audited once); the runner fails the still unfunded wallet again', async () => {
    const appId = await teamApp();
    const ada = await appUser(appId);
    const created = await newPush(appId, { userIds: [ada.userId] });
    const first = await untilCompleted(owner, appId, created.pushId);
    assert.equal(first.counts.failed, 1);
    const headers = { 'idempotency-key': `retry-${created.pushId}` };
    const res = await retryPush(owner, appId, created.pushId, { headers });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.content.retried, 1);
    const replay = await retryPush(owner, appId, created.pushId, { headers });
    assert.equal(replay.status, 200, replay.text);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(replay.body, res.body);
    assert.equal((await auditOf(appId, 'distribution_push.retried')).length, 1);

    const second = await untilCompleted(owner, appId, created.pushId);
    assert.deepEqual(second.counts, { total: 1, pending: 0, submitted: 0, paid: 0, failed: 1, skipped: 0 });
    const [recipient] = (await listRecipients(owner, appId, created.pushId)).body.content.recipients;
    assert.deepEqual([recipient.status, recipient.failureCode], ['failed', 'WALLET_NOT_FUNDED']);
    assert.ok(Date.parse(recipient.updatedAt) > Date.parse(first.completedAt), 'sent again after the retry');
  });

  test('404 DISTRIBUTION_PUSH_NOT_FOUND for an unknown push and another app\u2019s push; 400 a malformed pushId; nothing retried', async () => {
    const [appId, otherAppId] = [await teamApp(), await teamApp()];
    const theirs = await untilCompleted(
      owner,
      otherAppId,
      (await newPush(otherAppId, { userIds: [(await appUser(otherAppId)).userId] })).pushId,
    );
    assert.equal(theirs.counts.failed, 1);
    for (const pushId of ['dps_0000000000000000000000', theirs.pushId]) {
      const res = await retryPush(owner, appId, pushId);
      assert.deepEqual([res.status, res.body.code], [404, 'DISTRIBUTION_PUSH_NOT_FOUND'], res.text);
    }
    const malformed = await retryPush(owner, appId, 'push-1');
    assert.equal(malformed.status, 400, malformed.text);
    assert.ok(malformed.body.details.fieldErrors['path.pushId'], malformed.text);
    const outsiders = await retryPush(outsider, otherAppId, theirs.pushId);
    assert.deepEqual([outsiders.status, outsiders.body.code], [404, 'APPLICATION_NOT_FOUND'], outsiders.text);
    const anon = await anonymous('retryDistributionPush', 'POST', `${pushesPath(otherAppId)}/${theirs.pushId}/retry`);
    assert.equal(anon.status, 401, anon.text);
    const failedStill = await listRecipients(owner, otherAppId, theirs.pushId, { status: 'failed' });
    assert.equal(failedStill.body.content.recipients.length, 1);
    for (const app of [appId, otherAppId]) assert.equal((await auditOf(app, 'distribution_push.retried')).length, 0);
  });
});
