// createServerDistributionPush (POST /v1/distribution-pushes): a push for the secret key's app, its recipients
// resolved among that app's users (an external id set through setUserExternalId), audited with the key as actor; the
// recipients, asset, wallet and value checks answer as on the Dashboard API; the Idempotency-Key replays; a
// publishable key is refused. The service runs no jobs here (WITHOUT_JOBS): a push is read as created. Set-up in
// distributionPushes.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair } from '@stellar/stellar-sdk';
import {
  auditOf,
  createPush,
  keyApp,
  keyAppUser,
  listPushes,
  listRecipients,
  recipientLine,
  setExternalId,
  svc,
  useService,
  WITHOUT_JOBS,
  xlmPush,
} from './distributionPushes.setup';

describe('createServerDistributionPush', () => {
  useService(WITHOUT_JOBS);

  test('201 SERVER_DISTRIBUTION_PUSH_CREATED on the key\u2019s app: user id, external id, wallet address resolved; another app\u2019s user, an unknown and a repeated one skipped; audited with the key as actor', async () => {
    const creds = await keyApp();
    const other = await keyApp();
    const [ada, bob, cy] = [await keyAppUser(creds), await keyAppUser(creds), await keyAppUser(creds)];
    const stranger = await keyAppUser(other);
    const set = await setExternalId(creds.secretKey, bob.userId, 'crm-42');
    assert.equal(set.status, 200, set.text);
    const res = await createPush(
      creds.secretKey,
      xlmPush(
        {
          userIds: [ada.userId, stranger.userId],
          externalIds: ['crm-42', 'crm-0'],
          walletAddresses: [cy.address, stranger.address, ada.address],
        },
        { name: 'Server airdrop', amount: '0.5' },
      ),
    );
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.code, 'SERVER_DISTRIBUTION_PUSH_CREATED');
    const push = res.body.content;
    assert.deepEqual(
      [push.name, push.asset, push.amount, push.status, push.counts, push.paidAmount, push.completedAt],
      [
        'Server airdrop',
        'native',
        '0.5',
        'running',
        { total: 7, pending: 3, submitted: 0, paid: 0, failed: 0, skipped: 4 },
        '0',
        null,
      ],
    );
    const listed = await listRecipients(creds.secretKey, push.pushId);
    assert.deepEqual(listed.body.content.recipients.map(recipientLine), [
      ['userId', ada.userId, 'pending', null],
      ['userId', stranger.userId, 'skipped', 'RECIPIENT_NOT_FOUND'],
      ['externalId', 'crm-42', 'pending', null],
      ['externalId', 'crm-0', 'skipped', 'RECIPIENT_NOT_FOUND'],
      ['walletAddress', cy.address, 'pending', null],
      ['walletAddress', stranger.address, 'skipped', 'RECIPIENT_NOT_FOUND'],
      ['walletAddress', ada.address, 'skipped', 'DUPLICATE_RECIPIENT'],
    ]);
    assert.equal(listed.body.content.recipients[2].userId, bob.userId);
    const [audited] = await auditOf(creds.app.id, 'distribution_push.created');
    assert.deepEqual(
      [audited?.actor_type, audited?.actor_id, audited?.details],
      ['api_key', creds.secretKeyId, { pushId: push.pushId, asset: 'native', amount: '0.5', recipients: 7 }],
    );
    assert.equal((await listPushes(other.secretKey)).body.content.pushes.length, 0);
  });

  test('all skipped: completed at once', async () => {
    const creds = await keyApp();
    const res = await createPush(creds.secretKey, xlmPush({ walletAddresses: [Keypair.random().publicKey()] }));
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(
      [res.body.content.status, res.body.content.counts.skipped, res.body.content.completedAt],
      ['completed', 1, res.body.content.createdAt],
    );
  });

  test('422 DISTRIBUTION_PUSH_RECIPIENTS_INVALID (none; 10,001 in all), 422 DISTRIBUTION_ASSET_NOT_ENABLED, 409 DISTRIBUTION_NO_DISTRIBUTION_WALLET, 400 amount 0 and a malformed address; nothing stored', async () => {
    const asset = `USDC:${Keypair.random().publicKey()}`;
    const creds = await keyApp();
    const ada = await keyAppUser(creds);
    const none = await createPush(creds.secretKey, xlmPush({}));
    assert.deepEqual([none.status, none.body.code], [422, 'DISTRIBUTION_PUSH_RECIPIENTS_INVALID'], none.text);
    assert.deepEqual(none.body.details.fieldErrors, { recipients: ['name at least one recipient'] });
    const tooMany = await createPush(
      creds.secretKey,
      xlmPush({
        externalIds: Array.from({ length: 10_000 }, (_, i) => `c-${i}`),
        walletAddresses: [ada.address],
      }),
    );
    assert.deepEqual([tooMany.status, tooMany.body.code], [422, 'DISTRIBUTION_PUSH_RECIPIENTS_INVALID'], tooMany.text);
    assert.deepEqual(tooMany.body.details.fieldErrors, { recipients: ['at most 10000 in all'] });
    const notEnabled = await createPush(creds.secretKey, xlmPush({ userIds: [ada.userId] }, { asset }));
    assert.deepEqual([notEnabled.status, notEnabled.body.code], [422, 'DISTRIBUTION_ASSET_NOT_ENABLED']);
    const zero = await createPush(creds.secretKey, xlmPush({ userIds: [ada.userId] }, { amount: '0' }));
    assert.equal(zero.status, 400, zero.text);
    assert.deepEqual(Object.keys(zero.body.details.fieldErrors), ['amount'], zero.text);
    const malformed = await createPush(creds.secretKey, xlmPush({ walletAddresses: ['GABC'] }));
    assert.equal(malformed.status, 400, malformed.text);
    assert.deepEqual(Object.keys(malformed.body.details.fieldErrors), ['recipients.walletAddresses.0']);
    const walletless = await keyApp({ wallet: false, assets: [asset] });
    const noWallet = await createPush(
      walletless.secretKey,
      xlmPush({ userIds: [(await keyAppUser(walletless)).userId] }, { asset }),
    );
    assert.deepEqual([noWallet.status, noWallet.body.code], [409, 'DISTRIBUTION_NO_DISTRIBUTION_WALLET']);
    for (const c of [creds, walletless]) {
      assert.equal((await listPushes(c.secretKey)).body.content.pushes.length, 0);
      assert.equal((await auditOf(c.app.id, 'distribution_push.created')).length, 0);
    }
  });

  test('the same Idempotency-Key replays the push: one push', async () => {
    const creds = await keyApp();
    const ada = await keyAppUser(creds);
    const headers = { 'Idempotency-Key': 'server-push-1' };
    const first = await createPush(creds.secretKey, xlmPush({ userIds: [ada.userId] }), { headers });
    assert.equal(first.status, 201, first.text);
    const again = await createPush(creds.secretKey, xlmPush({ userIds: [ada.userId] }), { headers });
    assert.equal(again.status, 201, again.text);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
    assert.equal((await svc.deps.db('distribution_pushes').where({ app_id: creds.app.id })).length, 1);
  });

  test('403 API_KEY_TYPE_NOT_ALLOWED with the publishable key; 401 without a key; nothing stored', async () => {
    const creds = await keyApp();
    const ada = await keyAppUser(creds);
    const wrongType = await createPush(creds.publishableKey, xlmPush({ userIds: [ada.userId] }));
    assert.deepEqual([wrongType.status, wrongType.body.code], [403, 'API_KEY_TYPE_NOT_ALLOWED']);
    const none = await createPush('', xlmPush({ userIds: [ada.userId] }));
    assert.equal(none.status, 401, none.text);
    assert.equal((await listPushes(creds.secretKey)).body.content.pushes.length, 0);
  });
});
