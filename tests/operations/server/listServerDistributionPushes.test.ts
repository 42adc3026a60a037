// listServerDistributionPushes (GET /v1/distribution-pushes): the key's app's pushes, newest first, a page at a time;
// never another app's. The service runs no jobs here (WITHOUT_JOBS). Set-up in distributionPushes.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { keyApp, listPushes, newPush, useService, WITHOUT_JOBS } from './distributionPushes.setup';

const ids = (res: { body: { content: { pushes: { pushId: string }[] } } }) =>
  res.body.content.pushes.map((p) => p.pushId);

describe('listServerDistributionPushes', () => {
  useService(WITHOUT_JOBS);

  test('200 SERVER_DISTRIBUTION_PUSHES_LISTED: the app\u2019s pushes newest first, another app\u2019s not; limit=1 pages through them', async () => {
    const creds = await keyApp();
    const other = await keyApp();
    const made: any[] = [];
    for (const name of ['First', 'Second', 'Third'])
      made.unshift(await newPush(creds.secretKey, { externalIds: ['x'] }, { name }));
    await newPush(other.secretKey, { externalIds: ['x'] }, { name: 'Elsewhere' });
    const res = await listPushes(creds.secretKey);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'SERVER_DISTRIBUTION_PUSHES_LISTED');
    assert.deepEqual(res.body.content, { pushes: made, nextCursor: null });

    const seen: string[] = [];
    let cursor: string | null | undefined;
    do {
      const page = await listPushes(creds.secretKey, { limit: 1, ...(cursor ? { cursor } : {}) });
      assert.equal(page.status, 200, page.text);
      seen.push(...ids(page));
      cursor = page.body.content.nextCursor;
    } while (cursor && seen.length < 10);
    assert.deepEqual(
      seen,
      made.map((p) => p.pushId),
    );
    assert.deepEqual(
      (await listPushes(other.secretKey)).body.content.pushes.map((p: any) => p.name),
      ['Elsewhere'],
    );
  });

  test('400 INVALID_CURSOR for a cursor this list never gave (another app\u2019s included)', async () => {
    const creds = await keyApp();
    const other = await keyApp();
    for (let i = 0; i < 2; i++) await newPush(other.secretKey, { externalIds: ['x'] });
    const theirs = (await listPushes(other.secretKey, { limit: 1 })).body.content.nextCursor;
    for (const cursor of ['garbage', theirs]) {
      const res = await listPushes(creds.secretKey, { cursor });
      assert.deepEqual([res.status, res.body.code], [400, 'INVALID_CURSOR'], res.text);
      assert.ok(res.body.details.fieldErrors['query.cursor'], res.text);
    }
  });

  test('401 without a key; 403 with the publishable key', async () => {
    const creds = await keyApp();
    const wrongType = await listPushes(creds.publishableKey);
    assert.deepEqual([wrongType.status, wrongType.body.code], [403, 'API_KEY_TYPE_NOT_ALLOWED']);
    const none = await listPushes('');
    assert.equal(none.status, 401, none.text);
  });
});
