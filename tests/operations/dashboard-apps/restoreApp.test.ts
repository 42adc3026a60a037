// restoreApp (POST /api/v1/apps/{appId}/restore): restore an archived app (owner only). Shared set-up: setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { admin, developer, outsider, owner, teamApp, useService } from './setup';

describe('restoreApp', () => {
  useService();

  describe('archiveApp and restoreApp', () => {
    test('admins and developers get 403 FORBIDDEN on archive and restore; the app stays as it was', async () => {
      const appId = await teamApp();
      for (const client of [admin, developer]) {
        const res = await client.call('archiveApp', 'POST', `/api/v1/apps/${appId}/archive`);
        assert.equal(res.status, 403);
        assert.equal(res.body.code, 'FORBIDDEN');
      }
      assert.equal((await owner.call('getApp', 'GET', `/api/v1/apps/${appId}`)).body.content.status, 'active');
      await owner.call('archiveApp', 'POST', `/api/v1/apps/${appId}/archive`);
      for (const client of [admin, developer]) {
        const res = await client.call('restoreApp', 'POST', `/api/v1/apps/${appId}/restore`);
        assert.equal(res.status, 403);
        assert.equal(res.body.code, 'FORBIDDEN');
      }
      assert.equal((await owner.call('getApp', 'GET', `/api/v1/apps/${appId}`)).body.content.status, 'archived');
    });

    test('another operator gets 404 on archive, restore and reading an archived app', async () => {
      const appId = await teamApp();
      const archive = await outsider.call('archiveApp', 'POST', `/api/v1/apps/${appId}/archive`);
      assert.equal(archive.status, 404);
      assert.equal(archive.body.code, 'APPLICATION_NOT_FOUND');
      await owner.call('archiveApp', 'POST', `/api/v1/apps/${appId}/archive`);
      for (const res of [
        await outsider.call('restoreApp', 'POST', `/api/v1/apps/${appId}/restore`),
        await outsider.call('getApp', 'GET', `/api/v1/apps/${appId}`),
      ]) {
        assert.equal(res.status, 404);
        assert.equal(res.body.code, 'APPLICATION_NOT_FOUND');
      }
      const listed = await outsider.call('listApps', 'GET', '/api/v1/apps?includeArchived=true');
      assert.ok(!listed.body.content.apps.some((a: any) => a.appId === appId));
    });
  });
});
