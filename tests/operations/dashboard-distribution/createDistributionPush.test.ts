// createDistributionPush (POST /api/v1/apps/{appId}/distribution/pushes): a member records a push of an amount of XLM
// or a configured asset to up to 10,000 of the app's users, named by user id, external id or wallet address; every
// recipient is stored resolved (`pending`) or `skipped` with why before anything is sent; the values (400), the
// recipients in all and the asset (422) and the distribution wallet (409) are checked before anything is stored; the
// operator is the audited actor; Idempotency-Key replays. The service runs no jobs here (WITHOUT_JOBS): a push is read
// as created; getDistributionPush.test.ts pays one. Set-up in setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair } from '@stellar/stellar-sdk';
import { findApp } from '../../../src/domain/apps/store';
import { findAppWallet } from '../../../src/domain/wallets/appWallets';
import {
  anonymous,
  appUser,
  auditOf,
  createPush,
  developer,
  issuedAsset,
  listRecipients,
  newPush,
  outsider,
  owner,
  pushesPath,
  recipientLine,
  storedPushes,
  svc,
  teamApp,
  useService,
  withoutDistributionWallet,
  WITHOUT_JOBS,
  xlmPush,
} from './setup';

const recipientRows = (pushId: string) =>
  svc.deps.db('distribution_push_recipients').where({ push_id: pushId }).orderBy('position');

/** `n` user ids of the right form that name nobody. */
const unknownUserIds = (n: number, tag = 'A') =>
  Array.from({ length: n }, (_, i) => `usr_${tag}${String(i).padStart(21, '0')}`);

describe('createDistributionPush', () => {
  useService(WITHOUT_JOBS);

  test('201 DISTRIBUTION_PUSH_CREATED for a member: recipients by user id, external id and wallet address resolved; unknown and repeated ones skipped; audited', async () => {
    const appId = await teamApp();
    const [ada, bob, cy, dee] = [
      await appUser(appId),
      await appUser(appId, 'customer-4711'),
      await appUser(appId),
      await appUser(appId),
    ];
    const unknownAddress = Keypair.random().publicKey();
    const body = xlmPush(
      {
        userIds: [ada.userId, dee.userId, 'usr_NobodyWithThisId0000000'],
        externalIds: ['customer-4711', 'customer-0000'],
        walletAddresses: [cy.address, unknownAddress, ada.address],
      },
      { name: 'November airdrop', amount: '2.50' },
    );
    const res = await createPush(developer, appId, body);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.code, 'DISTRIBUTION_PUSH_CREATED');
    const push = res.body.content;
    assert.match(push.pushId, /^dps_[0-9A-Za-z]+$/);
    assert.deepEqual(
      { ...push, pushId: undefined, createdAt: undefined },
      {
        pushId: undefined,
        name: 'November airdrop',
        asset: 'native',
        amount: '2.5',
        status: 'running',
        counts: { total: 8, pending: 4, submitted: 0, paid: 0, failed: 0, skipped: 4 },
        paidAmount: '0',
        createdAt: undefined,
        completedAt: null,
      },
    );
    assert.ok(Math.abs(Date.parse(push.createdAt) - Date.now()) < 60_000, push.createdAt);

    // in the order named: user ids, external ids, wallet addresses; a wallet named again is a duplicate
    const listed = await listRecipients(owner, appId, push.pushId);
    assert.equal(listed.status, 200, listed.text);
    const recipients = listed.body.content.recipients;
    assert.deepEqual(recipients.map(recipientLine), [
      ['userId', ada.userId, 'pending', null],
      ['userId', dee.userId, 'pending', null],
      ['userId', 'usr_NobodyWithThisId0000000', 'skipped', 'RECIPIENT_NOT_FOUND'],
      ['externalId', 'customer-4711', 'pending', null],
      ['externalId', 'customer-0000', 'skipped', 'RECIPIENT_NOT_FOUND'],
      ['walletAddress', cy.address, 'pending', null],
      ['walletAddress', unknownAddress, 'skipped', 'RECIPIENT_NOT_FOUND'],
      ['walletAddress', ada.address, 'skipped', 'DUPLICATE_RECIPIENT'],
    ]);
    assert.deepEqual(
      recipients.map((r: any) => [r.userId, r.walletAddress, r.txHash]),
      [
        [ada.userId, ada.address, null],
        [dee.userId, dee.address, null],
        [null, null, null],
        [bob.userId, bob.address, null],
        [null, null, null],
        [cy.userId, cy.address, null],
        [null, null, null],
        [ada.userId, ada.address, null],
      ],
    );

    const [stored] = await storedPushes(appId);
    assert.deepEqual(
      [stored.id, stored.network, stored.amount_stroops, stored.status],
      [push.pushId, 'testnet', '25000000', 'running'],
    );
    assert.deepEqual(
      (await recipientRows(push.pushId)).map((r) => [r.position, r.wallet_id, r.attempts]),
      [
        [0, ada.walletId, 0],
        [1, dee.walletId, 0],
        [2, null, 0],
        [3, bob.walletId, 0],
        [4, null, 0],
        [5, cy.walletId, 0],
        [6, null, 0],
        [7, ada.walletId, 0],
      ],
    );
    const audited = await auditOf(appId, 'distribution_push.created');
    assert.equal(audited.length, 1);
    assert.deepEqual(
      [audited[0].actor_type, audited[0].actor_id, audited[0].details],
      ['operator', developer.operatorId, { pushId: push.pushId, asset: 'native', amount: '2.5', recipients: 8 }],
    );
  });

  test('the same user named twice, or by id and by external id, is paid once: the later names are DUPLICATE_RECIPIENT', async () => {
    const appId = await teamApp();
    const ada = await appUser(appId, 'ada-1');
    const push = await newPush(appId, { userIds: [ada.userId, ada.userId], externalIds: ['ada-1'] });
    assert.deepEqual(push.counts, { total: 3, pending: 1, submitted: 0, paid: 0, failed: 0, skipped: 2 });
    const listed = await listRecipients(owner, appId, push.pushId);
    assert.deepEqual(listed.body.content.recipients.map(recipientLine), [
      ['userId', ada.userId, 'pending', null],
      ['userId', ada.userId, 'skipped', 'DUPLICATE_RECIPIENT'],
      ['externalId', 'ada-1', 'skipped', 'DUPLICATE_RECIPIENT'],
    ]);
  });

  test("not the app's users: another app's user, a user without a wallet, the app's own treasury wallet are RECIPIENT_NOT_FOUND; all skipped is completed at once", async () => {
    const [appId, otherAppId] = [await teamApp(), await teamApp()];
    const stranger = await appUser(otherAppId, 'shared-id');
    const walletless = await appUser(appId);
    await svc.deps.db('wallets').where({ id: walletless.walletId }).delete();
    const treasury = await findAppWallet(svc.deps.db, (await findApp(svc.deps.db, appId))!, 'global');
    const res = await createPush(
      owner,
      appId,
      xlmPush({
        userIds: [stranger.userId, walletless.userId],
        externalIds: ['shared-id'],
        walletAddresses: [stranger.address, treasury!.publicKey],
      }),
    );
    assert.equal(res.status, 201, res.text);
    const push = res.body.content;
    assert.equal(push.status, 'completed');
    assert.deepEqual(push.counts, { total: 5, pending: 0, submitted: 0, paid: 0, failed: 0, skipped: 5 });
    assert.equal(push.completedAt, push.createdAt);
    const listed = await listRecipients(owner, appId, push.pushId);
    assert.ok(
      listed.body.content.recipients.every(
        (r: any) => r.status === 'skipped' && r.failureCode === 'RECIPIENT_NOT_FOUND' && r.userId === null,
      ),
      listed.text,
    );
    assert.equal((await storedPushes(appId))[0].completed_at.toISOString(), push.completedAt);
  });

  test('201: a configured issued asset, the name "Push" by default', async () => {
    const usdc = issuedAsset();
    const appId = await teamApp([usdc]);
    const ada = await appUser(appId);
    const res = await createPush(owner, appId, {
      asset: usdc,
      amount: '0.0000001',
      recipients: { walletAddresses: [ada.address] },
    });
    assert.equal(res.status, 201, res.text);
    const push = res.body.content;
    assert.deepEqual(
      [push.name, push.asset, push.amount, push.status, push.counts.pending],
      ['Push', usdc, '0.0000001', 'running', 1],
    );
    assert.equal((await storedPushes(appId))[0].amount_stroops, '1');
  });

  test('422 DISTRIBUTION_PUSH_RECIPIENTS_INVALID for no recipient and for 10,001 in all (fieldErrors.recipients); 10,000 are accepted', async () => {
    const appId = await teamApp();
    const nobody: Record<string, string[]>[] = [{}, { userIds: [], externalIds: [], walletAddresses: [] }];
    for (const recipients of nobody) {
      const res = await createPush(owner, appId, xlmPush(recipients));
      assert.deepEqual([res.status, res.body.code], [422, 'DISTRIBUTION_PUSH_RECIPIENTS_INVALID'], res.text);
      assert.deepEqual(res.body.details.fieldErrors, { recipients: ['name at least one recipient'] });
    }
    const tooMany = await createPush(
      owner,
      appId,
      xlmPush({ userIds: unknownUserIds(5000), externalIds: Array.from({ length: 5001 }, (_, i) => `customer-${i}`) }),
    );
    assert.deepEqual([tooMany.status, tooMany.body.code], [422, 'DISTRIBUTION_PUSH_RECIPIENTS_INVALID'], tooMany.text);
    assert.deepEqual(tooMany.body.details.fieldErrors, { recipients: ['at most 10000 in all'] });
    assert.equal((await storedPushes(appId)).length, 0);
    assert.equal((await auditOf(appId, 'distribution_push.created')).length, 0);

    const ada = await appUser(appId);
    const most = await createPush(
      owner,
      appId,
      xlmPush({ userIds: [...unknownUserIds(4999), ada.userId], externalIds: unknownUserIds(5000, 'B') }),
    );
    assert.equal(most.status, 201, most.text);
    assert.deepEqual(most.body.content.counts, {
      total: 10_000,
      pending: 1,
      submitted: 0,
      paid: 0,
      failed: 0,
      skipped: 9_999,
    });
  });

  test('400 VALIDATION_ERROR: amount 0, more than 7 decimals, a malformed wallet address or user id, an unknown field; nothing stored', async () => {
    const appId = await teamApp();
    const ada = await appUser(appId);
    const cases: [unknown, string][] = [
      [xlmPush({ userIds: [ada.userId] }, { amount: '0' }), 'amount'],
      [xlmPush({ userIds: [ada.userId] }, { amount: '0.00000001' }), 'amount'],
      [xlmPush({ walletAddresses: ['GNOTANADDRESS'] }), 'recipients.walletAddresses.0'],
      [xlmPush({ walletAddresses: [ada.address.toLowerCase()] }), 'recipients.walletAddresses.0'],
      [xlmPush({ userIds: ['someone'] }), 'recipients.userIds.0'],
    ];
    for (const [body, field] of cases) {
      const res = await createPush(owner, appId, body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.deepEqual(Object.keys(res.body.details.fieldErrors), [field], res.text);
    }
    const extra = await createPush(owner, appId, { ...xlmPush({ userIds: [ada.userId] }), status: 'completed' });
    assert.equal(extra.status, 400, extra.text);
    assert.deepEqual(Object.keys(extra.body.details.fieldErrors), ['status'], extra.text);
    const malformedApp = await createPush(owner, 'not-an-app', xlmPush({ userIds: [ada.userId] }));
    assert.equal(malformedApp.status, 400, malformedApp.text);
    assert.ok(malformedApp.body.details.fieldErrors['path.appId'], malformedApp.text);
    assert.equal((await storedPushes(appId)).length, 0);
  });

  test('422 DISTRIBUTION_ASSET_NOT_ENABLED for an asset the app does not configure; nothing stored', async () => {
    const appId = await teamApp([issuedAsset('USDC')]);
    const ada = await appUser(appId);
    const other = issuedAsset('EURC');
    const res = await createPush(owner, appId, xlmPush({ userIds: [ada.userId] }, { asset: other }));
    assert.deepEqual([res.status, res.body.code], [422, 'DISTRIBUTION_ASSET_NOT_ENABLED'], res.text);
    assert.equal(res.body.message, `${other} is not configured for this app`);
    assert.equal((await storedPushes(appId)).length, 0);
  });

  test('409 DISTRIBUTION_NO_DISTRIBUTION_WALLET when no wallet does distribution; nothing stored', async () => {
    const appId = await teamApp();
    const ada = await appUser(appId);
    await withoutDistributionWallet(appId);
    const res = await createPush(owner, appId, xlmPush({ userIds: [ada.userId] }));
    assert.deepEqual([res.status, res.body.code], [409, 'DISTRIBUTION_NO_DISTRIBUTION_WALLET'], res.text);
    assert.equal((await storedPushes(appId)).length, 0);
    assert.equal((await auditOf(appId, 'distribution_push.created')).length, 0);
  });

  test('Idempotency-Key: a retry replays the same push (one stored, audited once); the key with another body is 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const appId = await teamApp();
    const ada = await appUser(appId);
    const headers = { 'idempotency-key': `push-${Date.now()}` };
    const body = xlmPush({ userIds: [ada.userId] });
    const first = await createPush(owner, appId, body, { headers });
    assert.equal(first.status, 201, first.text);
    const retry = await createPush(owner, appId, body, { headers });
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(retry.body, first.body);
    const reused = await createPush(owner, appId, xlmPush({ userIds: [ada.userId] }, { amount: '2' }), { headers });
    assert.deepEqual([reused.status, reused.body.code], [422, 'IDEMPOTENCY_KEY_REUSED'], reused.text);
    assert.equal((await storedPushes(appId)).length, 1);
    assert.equal((await auditOf(appId, 'distribution_push.created')).length, 1);
  });

  test('404 APPLICATION_NOT_FOUND for an outsider and 401 without a session; nothing stored', async () => {
    const appId = await teamApp();
    const ada = await appUser(appId);
    const res = await createPush(outsider, appId, xlmPush({ userIds: [ada.userId] }));
    assert.deepEqual([res.status, res.body.code], [404, 'APPLICATION_NOT_FOUND'], res.text);
    const anon = await anonymous(
      'createDistributionPush',
      'POST',
      pushesPath(appId),
      xlmPush({ userIds: [ada.userId] }),
    );
    assert.equal(anon.status, 401, anon.text);
    assert.equal((await storedPushes(appId)).length, 0);
  });
});
