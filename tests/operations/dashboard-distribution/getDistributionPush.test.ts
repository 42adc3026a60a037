// getDistributionPush (GET /api/v1/apps/{appId}/distribution/pushes/{pushId}): one push with its recipients counted by
// status and what was paid so far. The service's push runner (the `distribution-pushes` job) runs as under `make
// run`: a push of XLM to two signed-in users is paid on the localnet, followed by polling this operation until it is
// `completed`, then checked on the chain, in the users' histories and in the events. Set-up in setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appWithWallet, closeLedgersEvery, gatewayOf, untilFunded } from '../../support/funding';
import { signInOperator } from '../../support/operators';
import { signInUser } from '../../support/users';
import {
  anonymous,
  appUser,
  createPush,
  developer,
  getPush,
  listRecipients,
  newPush,
  outsider,
  owner,
  pushesPath,
  svc,
  teamApp,
  untilCompleted,
  useService,
  xlmPush,
} from './setup';

describe('getDistributionPush', () => {
  useService();

  test('200 DISTRIBUTION_PUSH_FETCHED for a member: the push as created; all skipped, it is completed at once', async () => {
    const appId = await teamApp();
    const push = await newPush(appId, { externalIds: ['nobody', 'nobody-else'] }, { name: 'Nobody', amount: '4' });
    const res = await getPush(developer, appId, push.pushId);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'DISTRIBUTION_PUSH_FETCHED');
    assert.deepEqual(res.body.content, push);
    assert.deepEqual(
      [push.status, push.counts, push.paidAmount, push.completedAt],
      ['completed', { total: 2, pending: 0, submitted: 0, paid: 0, failed: 0, skipped: 2 }, '0', push.createdAt],
    );
  });

  test('paid on localnet: a push of 1 XLM to two users is completed, each recipient paid in a ledger, in the user\u2019s history, with wallet.funded', async () => {
    const stopClosing = closeLedgersEvery(svc);
    try {
      const { creds, app } = await appWithWallet(svc, { settings: { fundingMode: 'immediate' } });
      const appOwner = await signInOperator(svc, creds.operator.email!);
      const users = [await signInUser(svc, creds), await signInUser(svc, creds)];
      for (const u of users) await untilFunded(svc, u.signIn.wallet.walletId);

      const created = await createPush(
        appOwner,
        app.id,
        xlmPush({ userIds: users.map((u) => u.userId) }, { name: 'Launch airdrop' }),
      );
      assert.equal(created.status, 201, created.text);
      const { pushId } = created.body.content;
      const push = await untilCompleted(appOwner, app.id, pushId);
      assert.deepEqual(
        { ...push, createdAt: undefined, completedAt: undefined },
        {
          pushId,
          name: 'Launch airdrop',
          asset: 'native',
          amount: '1',
          status: 'completed',
          counts: { total: 2, pending: 0, submitted: 0, paid: 2, failed: 0, skipped: 0 },
          paidAmount: '2',
          createdAt: undefined,
          completedAt: undefined,
        },
      );
      assert.ok(Date.parse(push.completedAt) >= Date.parse(push.createdAt), push.completedAt);

      const listed = await listRecipients(appOwner, app.id, pushId);
      assert.equal(listed.status, 200, listed.text);
      const recipients = listed.body.content.recipients;
      assert.deepEqual(
        recipients.map((r: any) => [r.userId, r.walletAddress, r.status, r.failureCode]),
        users.map((u) => [u.userId, u.signIn.wallet.publicKey, 'paid', null]),
      );
      const gw = gatewayOf(svc);
      for (const [i, user] of users.entries()) {
        const { txHash } = recipients[i];
        assert.match(txHash, /^[0-9a-f]{64}$/);
        // on the chain: applied, and the sponsored account (0 XLM of its own) now holds what was paid
        assert.equal((await gw.transactionDetails(txHash))?.status, 'SUCCESS');
        assert.equal((await gw.loadAccount(user.signIn.wallet.publicKey))?.balanceStroops, 10_000_000n);
        // in the user's wallet history
        const history = await user.call('getTxHistory', 'GET', '/v1/tx/history');
        assert.equal(history.status, 200, history.text);
        const record = history.body.content.records.find((r: { hash: string }) => r.hash === txHash);
        assert.ok(record, `${txHash} in ${history.text}`);
        assert.deepEqual(
          [record.status, record.operation, record.summary],
          ['SUCCESS', 'payment', 'Received 1 XLM (Launch airdrop)'],
        );
      }
      // one wallet.funded per recipient, naming its wallet and transaction
      const events = await svc.deps
        .db('outbox_events')
        .where({ app_id: app.id, type: 'wallet.funded' })
        .orderBy('created_at')
        .select('data');
      assert.deepEqual(
        events.map((e) => e.data).sort((a, b) => a.walletId.localeCompare(b.walletId)),
        users
          .map((u, i) => ({
            walletId: u.signIn.wallet.walletId,
            asset: 'native',
            amount: '1',
            txHash: recipients[i].txHash,
          }))
          .sort((a, b) => a.walletId.localeCompare(b.walletId)),
      );
      // the paid push reads the same afterwards
      assert.deepEqual((await getPush(appOwner, app.id, pushId)).body.content, push);
    } finally {
      stopClosing();
    }
  });

  test('a wallet not activated: the runner fails its recipient WALLET_NOT_FUNDED and the push is completed with nothing paid', async () => {
    const appId = await teamApp();
    const ada = await appUser(appId);
    const created = await newPush(appId, { userIds: [ada.userId], externalIds: ['nobody'] });
    const push = await untilCompleted(owner, appId, created.pushId);
    assert.deepEqual(
      [push.counts, push.paidAmount],
      [{ total: 2, pending: 0, submitted: 0, paid: 0, failed: 1, skipped: 1 }, '0'],
    );
    assert.ok(push.completedAt);
    const failed = await listRecipients(owner, appId, created.pushId, { status: 'failed' });
    assert.deepEqual(
      failed.body.content.recipients.map((r: any) => [r.userId, r.status, r.failureCode, r.txHash]),
      [[ada.userId, 'failed', 'WALLET_NOT_FUNDED', null]],
    );
  });

  test('404 DISTRIBUTION_PUSH_NOT_FOUND for an unknown push and another app\u2019s push; 400 a malformed pushId', async () => {
    const [appId, otherAppId] = [await teamApp(), await teamApp()];
    const theirs = await newPush(otherAppId, { externalIds: ['x'] });
    for (const pushId of ['dps_0000000000000000000000', theirs.pushId]) {
      const res = await getPush(owner, appId, pushId);
      assert.deepEqual([res.status, res.body.code], [404, 'DISTRIBUTION_PUSH_NOT_FOUND'], res.text);
      assert.equal(res.body.message, 'No distribution push with this id in the app');
    }
    for (const pushId of ['push-1', 'dst_0000000000000000000000', `dps_${'a'.repeat(61)}`]) {
      const res = await getPush(owner, appId, pushId);
      assert.equal(res.status, 400, `${pushId}: ${res.text}`);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.ok(res.body.details.fieldErrors['path.pushId'], res.text);
    }
  });

  test('404 APPLICATION_NOT_FOUND for an outsider; 401 without a session', async () => {
    const appId = await teamApp();
    const push = await newPush(appId, { externalIds: ['x'] });
    const res = await getPush(outsider, appId, push.pushId);
    assert.deepEqual([res.status, res.body.code], [404, 'APPLICATION_NOT_FOUND'], res.text);
    const anon = await anonymous('getDistributionPush', 'GET', `${pushesPath(appId)}/${push.pushId}`);
    assert.equal(anon.status, 401, anon.text);
  });
});
