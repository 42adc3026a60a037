// listApps (GET /api/v1/apps): list the operator's apps. Shared set-up: setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { developer, outsider, owner, teamApp, useService } from './setup';

describe('listApps', () => {
  useService();

  test("lists only the caller's apps, newest first, with the caller's role in each", async () => {
    const first = await teamApp('List first');
    const second = await teamApp('List second');
    const theirs = await outsider.call('createApp', 'POST', '/api/v1/apps', {
      body: { name: 'Outsider app', network: 'testnet' },
    });
    const mine = await owner.call('listApps', 'GET', '/api/v1/apps');
    assert.equal(mine.status, 200);
    assert.equal(mine.body.code, 'APPS_LISTED');
    const ids: string[] = mine.body.content.apps.map((a: any) => a.appId);
    assert.ok(ids.indexOf(second) < ids.indexOf(first) && ids.indexOf(second) >= 0, 'newest first');
    assert.ok(!ids.includes(theirs.body.content.appId), "another operator's app is never listed");
    const asDeveloper = await developer.call('listApps', 'GET', '/api/v1/apps');
    assert.deepEqual(
      asDeveloper.body.content.apps.filter((a: any) => [first, second].includes(a.appId)).map((a: any) => a.role),
      ['developer', 'developer'],
    );
    const outsiders = await outsider.call('listApps', 'GET', '/api/v1/apps');
    assert.deepEqual(
      outsiders.body.content.apps.map((a: any) => a.appId),
      [theirs.body.content.appId],
    );
  });

  test('400 VALIDATION_ERROR when includeArchived is not a boolean', async () => {
    const res = await owner.call('listApps', 'GET', '/api/v1/apps?includeArchived=maybe');
    assert.equal(res.status, 400);
    assert.ok(res.body.details.fieldErrors['query.includeArchived']);
  });
});
