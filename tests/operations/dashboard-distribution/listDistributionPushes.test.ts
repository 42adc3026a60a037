// listDistributionPushes (GET /api/v1/apps/{appId}/distribution/pushes): the app's pushes, newest first, each with its
// progress, a page at a time (cursor paging); never another app's. The service runs no jobs here (WITHOUT_JOBS): a
// push is listed as created. Set-up in setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  anonymous,
  appUser,
  developer,
  listPushes,
  newPush,
  outsider,
  owner,
  pushesPath,
  teamApp,
  useService,
  WITHOUT_JOBS,
} from './setup';

const ids = (res: { body: { content: { pushes: { pushId: string }[] } } }) =>
  res.body.content.pushes.map((p) => p.pushId);

describe('listDistributionPushes', () => {
  useService(WITHOUT_JOBS);

  test('200 DISTRIBUTION_PUSHES_LISTED for a member: newest first, each with its progress; another app\u2019s not listed', async () => {
    const [appId, otherAppId] = [await teamApp(), await teamApp()];
    const ada = await appUser(appId);
    const first = await newPush(appId, { userIds: [ada.userId] }, { name: 'First' });
    const second = await newPush(appId, { externalIds: ['nobody'] }, { name: 'Second', amount: '3' });
    const third = await newPush(appId, { userIds: [ada.userId], walletAddresses: [ada.address] }, { name: 'Third' });
    await newPush(otherAppId, { externalIds: ['nobody'] }, { name: 'Elsewhere' });

    const res = await listPushes(developer, appId);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'DISTRIBUTION_PUSHES_LISTED');
    assert.deepEqual(ids(res), [third.pushId, second.pushId, first.pushId]);
    assert.equal(res.body.content.nextCursor, null);
    // as getDistributionPush answers each
    assert.deepEqual(res.body.content.pushes, [third, second, first]);
    assert.deepEqual(
      res.body.content.pushes.map((p: any) => [p.name, p.status, p.counts.total, p.counts.pending, p.counts.skipped]),
      [
        ['Third', 'running', 2, 1, 1],
        ['Second', 'completed', 1, 0, 1],
        ['First', 'running', 1, 1, 0],
      ],
    );
    assert.deepEqual(
      (await listPushes(owner, otherAppId)).body.content.pushes.map((p: any) => p.name),
      ['Elsewhere'],
    );
  });

  test('an app without pushes: an empty page', async () => {
    const res = await listPushes(owner, await teamApp());
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.content, { pushes: [], nextCursor: null });
  });

  test('cursor paging with limit=1: each push once, newest first, then nextCursor null; limit=2 pages the same', async () => {
    const appId = await teamApp();
    const made: string[] = [];
    for (const name of ['One', 'Two', 'Three'])
      made.unshift((await newPush(appId, { externalIds: ['x'] }, { name })).pushId);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 3; page++) {
      const res = await listPushes(owner, appId, { limit: 1, ...(cursor ? { cursor } : {}) });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.content.pushes.length, 1);
      seen.push(...ids(res));
      cursor = res.body.content.nextCursor ?? undefined;
      assert.equal(typeof res.body.content.nextCursor, page < 2 ? 'string' : 'object', res.text);
    }
    assert.equal(cursor, undefined);
    assert.deepEqual(seen, made);

    const firstTwo = await listPushes(owner, appId, { limit: 2 });
    assert.deepEqual(ids(firstTwo), made.slice(0, 2));
    const rest = await listPushes(owner, appId, { limit: 2, cursor: firstTwo.body.content.nextCursor });
    assert.deepEqual(ids(rest), made.slice(2));
    assert.equal(rest.body.content.nextCursor, null);
  });

  test('400 INVALID_CURSOR (query.cursor) for a cursor this list never gave: garbage, another list\u2019s, another app\u2019s; 400 for limit 0 and 101', async () => {
    const [appId, otherAppId] = [await teamApp(), await teamApp()];
    for (const app of [appId, otherAppId]) {
      await newPush(app, { externalIds: ['x'] });
      await newPush(app, { externalIds: ['y'] });
    }
    const theirs = (await listPushes(owner, otherAppId, { limit: 1 })).body.content.nextCursor;
    assert.equal(typeof theirs, 'string');
    const ruleCursor = Buffer.from(JSON.stringify({ a: 'dst_0123456789', o: 1 })).toString('base64url');
    for (const cursor of ['not a cursor', 'bm90LWEtY3Vyc29y', ruleCursor, theirs]) {
      const res = await listPushes(owner, appId, { cursor });
      assert.equal(res.status, 400, `${cursor}: ${res.text}`);
      assert.equal(res.body.code, 'INVALID_CURSOR');
      assert.ok(res.body.details.fieldErrors['query.cursor'], res.text);
    }
    for (const limit of [0, 101]) {
      const res = await listPushes(owner, appId, { limit });
      assert.equal(res.status, 400, res.text);
      assert.ok(res.body.details.fieldErrors['query.limit'], res.text);
    }
  });

  test('404 APPLICATION_NOT_FOUND for an outsider; 400 a malformed appId; 401 without a session', async () => {
    const appId = await teamApp();
    await newPush(appId, { externalIds: ['x'] });
    const res = await listPushes(outsider, appId);
    assert.deepEqual([res.status, res.body.code], [404, 'APPLICATION_NOT_FOUND'], res.text);
    const malformed = await listPushes(owner, 'app-1');
    assert.equal(malformed.status, 400, malformed.text);
    const anon = await anonymous('listDistributionPushes', 'GET', pushesPath(appId));
    assert.equal(anon.status, 401, anon.text);
  });
});
