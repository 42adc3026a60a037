// listDistributionPushRecipients (GET /api/v1/apps/{appId}/distribution/pushes/{pushId}/recipients): a push's
// recipients in the order the push named them (user ids, external ids, wallet addresses), each with what became of
// it; `status` keeps one state; cursor paging. The service runs no jobs here (WITHOUT_JOBS): recipients stay as the
// push was created, and the runner's own states are written into the rows as a pass leaves them. Set-up in setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair } from '@stellar/stellar-sdk';
import {
  anonymous,
  appUser,
  developer,
  getPush,
  listRecipients,
  newPush,
  outsider,
  owner,
  pushesPath,
  recipientLine,
  svc,
  teamApp,
  useService,
  WITHOUT_JOBS,
} from './setup';

/** A push naming, in this order: ada by id, nobody by id, bob by external id, nobody by external id, cy by address, ada again by address. */
async function mixedPush(appId: string) {
  const [ada, bob, cy] = [await appUser(appId), await appUser(appId, 'bob-7'), await appUser(appId)];
  const push = await newPush(appId, {
    userIds: [ada.userId, 'usr_NoSuchUser000000000000'],
    externalIds: ['bob-7', 'no-such-customer'],
    walletAddresses: [cy.address, ada.address],
  });
  const lines: ReturnType<typeof recipientLine>[] = [
    ['userId', ada.userId, 'pending', null],
    ['userId', 'usr_NoSuchUser000000000000', 'skipped', 'RECIPIENT_NOT_FOUND'],
    ['externalId', 'bob-7', 'pending', null],
    ['externalId', 'no-such-customer', 'skipped', 'RECIPIENT_NOT_FOUND'],
    ['walletAddress', cy.address, 'pending', null],
    ['walletAddress', ada.address, 'skipped', 'DUPLICATE_RECIPIENT'],
  ];
  return { push, ada, bob, cy, lines };
}

const lines = (res: { body: { content: { recipients: unknown[] } } }) => res.body.content.recipients.map(recipientLine);

describe('listDistributionPushRecipients', () => {
  useService(WITHOUT_JOBS);

  test('200 DISTRIBUTION_PUSH_RECIPIENTS_LISTED for a member: in the order named, each resolved or skipped with why', async () => {
    const appId = await teamApp();
    const { push, ada, bob, lines: expected } = await mixedPush(appId);
    const res = await listRecipients(developer, appId, push.pushId);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'DISTRIBUTION_PUSH_RECIPIENTS_LISTED');
    assert.deepEqual(lines(res), expected);
    assert.equal(res.body.content.nextCursor, null);
    const [first, second, third] = res.body.content.recipients;
    assert.deepEqual(first, {
      recipient: { kind: 'userId', value: ada.userId },
      userId: ada.userId,
      walletAddress: ada.address,
      status: 'pending',
      txHash: null,
      failureCode: null,
      updatedAt: push.createdAt,
    });
    assert.deepEqual([second.userId, second.walletAddress], [null, null]);
    assert.deepEqual([third.userId, third.walletAddress], [bob.userId, bob.address]);
  });

  test('status keeps one state: skipped, pending; none failed or paid yet', async () => {
    const appId = await teamApp();
    const { push, lines: all } = await mixedPush(appId);
    const skipped = await listRecipients(owner, appId, push.pushId, { status: 'skipped' });
    assert.equal(skipped.status, 200, skipped.text);
    assert.deepEqual(
      lines(skipped),
      all.filter((l) => l[2] === 'skipped'),
    );
    const pending = await listRecipients(owner, appId, push.pushId, { status: 'pending' });
    assert.deepEqual(
      lines(pending),
      all.filter((l) => l[2] === 'pending'),
    );
    for (const status of ['failed', 'paid', 'submitted']) {
      const none = await listRecipients(owner, appId, push.pushId, { status });
      assert.deepEqual(none.body.content, { recipients: [], nextCursor: null }, status);
    }
  });

  test('the runner\u2019s states as read: taken but not sent (queued) is pending, and found by status=pending; submitted shows its transaction', async () => {
    const appId = await teamApp();
    const { push, ada, cy } = await mixedPush(appId);
    const rows = svc.deps.db('distribution_push_recipients').where({ push_id: push.pushId });
    const hash = 'ab'.repeat(32);
    // as a pass leaves them: position 0 taken with a lease, position 4 recorded in an envelope and sent
    await rows
      .clone()
      .where({ position: 0 })
      .update({ status: 'queued', lease_until: new Date(Date.now() + 3_600_000), attempts: 1 });
    await rows.clone().where({ position: 4 }).update({ status: 'submitted', tx_hash: hash, envelope_xdr: 'AAAA' });
    const pending = await listRecipients(owner, appId, push.pushId, { status: 'pending' });
    assert.deepEqual(
      pending.body.content.recipients.map((r: any) => [r.recipient.value, r.status]),
      [
        [ada.userId, 'pending'],
        ['bob-7', 'pending'],
      ],
    );
    const submitted = await listRecipients(owner, appId, push.pushId, { status: 'submitted' });
    assert.deepEqual(
      submitted.body.content.recipients.map((r: any) => [r.recipient.value, r.status, r.txHash]),
      [[cy.address, 'submitted', hash]],
    );
    const read = await getPush(owner, appId, push.pushId);
    assert.deepEqual(read.body.content.counts, { total: 6, pending: 2, submitted: 1, paid: 0, failed: 0, skipped: 3 });
    const bad = await listRecipients(owner, appId, push.pushId, { status: 'queued' });
    assert.equal(bad.status, 400, bad.text);
    assert.ok(bad.body.details.fieldErrors['query.status'], bad.text);
  });

  test('cursor paging with limit: every recipient once, in order; with a status too; then nextCursor null', async () => {
    const appId = await teamApp();
    const { push, lines: all } = await mixedPush(appId);
    const pageThrough = async (params: { status?: string; limit: number }) => {
      const seen: unknown[] = [];
      let cursor: string | undefined;
      for (let pages = 0; ; pages++) {
        assert.ok(pages < 10, 'the pages end');
        const res = await listRecipients(owner, appId, push.pushId, { ...params, ...(cursor ? { cursor } : {}) });
        assert.equal(res.status, 200, res.text);
        assert.ok(res.body.content.recipients.length <= params.limit);
        seen.push(...lines(res));
        cursor = res.body.content.nextCursor ?? undefined;
        if (!cursor) return { seen, pages: pages + 1 };
      }
    };
    assert.deepEqual(await pageThrough({ limit: 2 }), { seen: all, pages: 3 });
    assert.deepEqual(await pageThrough({ limit: 4 }), { seen: all, pages: 2 });
    assert.deepEqual(await pageThrough({ limit: 1, status: 'skipped' }), {
      seen: all.filter((l) => l[2] === 'skipped'),
      pages: 3,
    });
  });

  test('404 DISTRIBUTION_PUSH_NOT_FOUND for an unknown push and for another app\u2019s push (of the same owner)', async () => {
    const [appId, otherAppId] = [await teamApp(), await teamApp()];
    const theirs = await newPush(otherAppId, { externalIds: ['x'] });
    for (const pushId of ['dps_0000000000000000000000', theirs.pushId]) {
      const res = await listRecipients(owner, appId, pushId);
      assert.deepEqual([res.status, res.body.code], [404, 'DISTRIBUTION_PUSH_NOT_FOUND'], res.text);
    }
    assert.equal((await listRecipients(owner, otherAppId, theirs.pushId)).status, 200);
  });

  test('400: a bad cursor (INVALID_CURSOR), limit 0 or 101, a malformed pushId or appId', async () => {
    const appId = await teamApp();
    const { push } = await mixedPush(appId);
    const notPosition = Buffer.from('p:x').toString('base64url');
    for (const cursor of ['not a cursor', notPosition, Keypair.random().publicKey()]) {
      const res = await listRecipients(owner, appId, push.pushId, { cursor });
      assert.deepEqual([res.status, res.body.code], [400, 'INVALID_CURSOR'], `${cursor}: ${res.text}`);
      assert.ok(res.body.details.fieldErrors['query.cursor'], res.text);
    }
    for (const limit of [0, 101]) {
      const res = await listRecipients(owner, appId, push.pushId, { limit });
      assert.equal(res.status, 400, res.text);
      assert.ok(res.body.details.fieldErrors['query.limit'], res.text);
    }
    const malformedPush = await listRecipients(owner, appId, 'push-1');
    assert.equal(malformedPush.status, 400, malformedPush.text);
    assert.ok(malformedPush.body.details.fieldErrors['path.pushId'], malformedPush.text);
    const malformedApp = await listRecipients(owner, 'app-1', push.pushId);
    assert.equal(malformedApp.status, 400, malformedApp.text);
  });

  test('404 APPLICATION_NOT_FOUND for an outsider; 401 without a session', async () => {
    const appId = await teamApp();
    const push = await newPush(appId, { externalIds: ['x'] });
    const res = await listRecipients(outsider, appId, push.pushId);
    assert.deepEqual([res.status, res.body.code], [404, 'APPLICATION_NOT_FOUND'], res.text);
    const anon = await anonymous(
      'listDistributionPushRecipients',
      'GET',
      `${pushesPath(appId)}/${push.pushId}/recipients`,
    );
    assert.equal(anon.status, 401, anon.text);
  });
});
