// getFeePolicy (GET /api/v1/apps/{appId}/fee-policy): get the app's fee-bump policy. Shared set-up: feePolicy.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CUSTOM, DEFAULTS, admin, developer, get, outsider, owner, put, teamApp, useService } from './feePolicy.setup';

describe('getFeePolicy', () => {
  useService();

  test('a new app has the default policy', async () => {
    const appId = await teamApp();
    const res = await get(owner, appId);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'FEE_POLICY_FETCHED');
    assert.deepEqual(res.body.content, DEFAULTS);
  });

  test("every member may read and change it, whatever their role (as the app's other settings)", async () => {
    const appId = await teamApp();
    for (const [client, cap] of [
      [owner, 1],
      [admin, 2],
      [developer, 3],
    ] as const) {
      const res = await put(client, appId, { ...DEFAULTS, dailyOpsCap: cap });
      assert.equal(res.status, 200, res.text);
      for (const reader of [owner, admin, developer])
        assert.equal((await get(reader, appId)).body.content.dailyOpsCap, cap);
    }
  });

  test("another operator's app: 404 APPLICATION_NOT_FOUND on read and replace, and nothing changes", async () => {
    const appId = await teamApp();
    await put(owner, appId, CUSTOM);
    for (const res of [await get(outsider, appId), await put(outsider, appId, DEFAULTS)]) {
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'APPLICATION_NOT_FOUND');
    }
    const missingApp = await get(owner, 'app_01JD3X5K7Q9T2M4N6P8R0S1V3W');
    assert.equal(missingApp.status, 404);
    assert.deepEqual((await get(owner, appId)).body.content, CUSTOM);
  });

  test('an archived app: 404 on read and replace; the policy is kept for a restore', async () => {
    const appId = await teamApp();
    await put(owner, appId, CUSTOM);
    await owner.call('archiveApp', 'POST', `/api/v1/apps/${appId}/archive`);
    for (const res of [await get(owner, appId), await put(owner, appId, DEFAULTS)]) {
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'APPLICATION_NOT_FOUND');
    }
    await owner.call('restoreApp', 'POST', `/api/v1/apps/${appId}/restore`);
    assert.deepEqual((await get(owner, appId)).body.content, CUSTOM);
  });
});
