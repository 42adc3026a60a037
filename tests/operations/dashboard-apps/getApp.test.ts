// getApp (GET /api/v1/apps/{appId}): get an app's settings. Shared set-up: setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, developer, outsider, owner, teamApp, useService } from './setup';

describe('getApp', () => {
  useService();

  test('every member reads the app with their own role', async () => {
    const appId = await teamApp();
    for (const [client, role] of [
      [owner, 'owner'],
      [admin, 'admin'],
      [developer, 'developer'],
    ] as const) {
      const res = await client.call('getApp', 'GET', `/api/v1/apps/${appId}`);
      assert.equal(res.status, 200);
      assert.equal(res.body.code, 'APP_FETCHED');
      assert.equal(res.body.content.role, role);
    }
  });

  test("another operator's app answers 404 APPLICATION_NOT_FOUND exactly like a missing one", async () => {
    const appId = await teamApp();
    const theirs = await outsider.call('getApp', 'GET', `/api/v1/apps/${appId}`);
    const missing = await outsider.call('getApp', 'GET', '/api/v1/apps/app_doesNotExist0000000000');
    assert.equal(theirs.status, 404);
    assert.equal(theirs.body.code, 'APPLICATION_NOT_FOUND');
    assert.deepEqual({ ...theirs.body, requestId: undefined }, { ...missing.body, requestId: undefined });
  });

  test('400 VALIDATION_ERROR for a malformed app id', async () => {
    const res = await owner.call('getApp', 'GET', '/api/v1/apps/not-an-app-id');
    assert.equal(res.status, 400);
    assert.ok(res.body.details.fieldErrors['path.appId']);
  });
});
