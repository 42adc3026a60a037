// listServerDistributionPushRecipients (GET /v1/distribution-pushes/{pushId}/recipients): a push of the key's app,
// its recipients in the order named, one state with `status`, a page at a time; another app's push is not found. The
// service runs no jobs here (WITHOUT_JOBS): recipients stay as created. Set-up in distributionPushes.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  keyApp,
  keyAppUser,
  listRecipients,
  newPush,
  recipientLine,
  setExternalId,
  useService,
  WITHOUT_JOBS,
} from './distributionPushes.setup';

const lines = (res: { body: { content: { recipients: unknown[] } } }) => res.body.content.recipients.map(recipientLine);

describe('listServerDistributionPushRecipients', () => {
  useService(WITHOUT_JOBS);

  test('200 SERVER_DISTRIBUTION_PUSH_RECIPIENTS_LISTED: in the order named; status=skipped and status=pending; limit and cursor page through them', async () => {
    const creds = await keyApp();
    const [ada, bob] = [await keyAppUser(creds), await keyAppUser(creds)];
    assert.equal((await setExternalId(creds.secretKey, bob.userId, 'bob@crm')).status, 200);
    const push = await newPush(creds.secretKey, {
      userIds: ['usr_NoSuchUser000000000000', ada.userId],
      externalIds: ['bob@crm'],
      walletAddresses: [bob.address],
    });
    const all = [
      ['userId', 'usr_NoSuchUser000000000000', 'skipped', 'RECIPIENT_NOT_FOUND'],
      ['userId', ada.userId, 'pending', null],
      ['externalId', 'bob@crm', 'pending', null],
      ['walletAddress', bob.address, 'skipped', 'DUPLICATE_RECIPIENT'],
    ];
    const res = await listRecipients(creds.secretKey, push.pushId);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'SERVER_DISTRIBUTION_PUSH_RECIPIENTS_LISTED');
    assert.deepEqual(lines(res), all);
    assert.deepEqual(
      lines(await listRecipients(creds.secretKey, push.pushId, { status: 'skipped' })),
      all.filter((l) => l[2] === 'skipped'),
    );
    assert.deepEqual(
      lines(await listRecipients(creds.secretKey, push.pushId, { status: 'pending' })),
      all.filter((l) => l[2] === 'pending'),
    );
    const first = await listRecipients(creds.secretKey, push.pushId, { limit: 3 });
    assert.deepEqual(lines(first), all.slice(0, 3));
    const rest = await listRecipients(creds.secretKey, push.pushId, {
      limit: 3,
      cursor: first.body.content.nextCursor,
    });
    assert.deepEqual(lines(rest), all.slice(3));
    assert.equal(rest.body.content.nextCursor, null);
  });

  test('404 DISTRIBUTION_PUSH_NOT_FOUND for an unknown push and another app\u2019s; 400 a bad cursor or pushId', async () => {
    const creds = await keyApp();
    const other = await keyApp();
    const theirs = await newPush(other.secretKey, { externalIds: ['x'] });
    for (const pushId of ['dps_0000000000000000000000', theirs.pushId]) {
      const res = await listRecipients(creds.secretKey, pushId);
      assert.deepEqual([res.status, res.body.code], [404, 'DISTRIBUTION_PUSH_NOT_FOUND'], res.text);
    }
    const badCursor = await listRecipients(other.secretKey, theirs.pushId, { cursor: 'garbage' });
    assert.deepEqual([badCursor.status, badCursor.body.code], [400, 'INVALID_CURSOR'], badCursor.text);
    assert.ok(badCursor.body.details.fieldErrors['query.cursor'], badCursor.text);
    const badId = await listRecipients(other.secretKey, 'dps-1');
    assert.equal(badId.status, 400, badId.text);
  });

  test('401 without a key; 403 with the publishable key', async () => {
    const creds = await keyApp();
    const push = await newPush(creds.secretKey, { externalIds: ['x'] });
    const wrongType = await listRecipients(creds.publishableKey, push.pushId);
    assert.deepEqual([wrongType.status, wrongType.body.code], [403, 'API_KEY_TYPE_NOT_ALLOWED']);
    const none = await listRecipients('', push.pushId);
    assert.equal(none.status, 401, none.text);
  });
});
