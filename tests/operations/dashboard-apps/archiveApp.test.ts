// archiveApp (POST /api/v1/apps/{appId}/archive): archive an app (owner only). Shared set-up: setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createApiKey } from '../../../src/domain/apiKeys/apiKeys';
import { call } from '../../support/http';
import { VALID_G, developer, outsider, owner, svc, teamApp, useService } from './setup';

describe('archiveApp', () => {
  useService();

  describe('archiveApp and restoreApp', () => {
    test('archive (owner): hidden from listApps unless includeArchived, readable by getApp, 404 elsewhere, keys refused; restore reverses it', async () => {
      const appId = await teamApp('Archived app');
      const key = await createApiKey(svc.deps.db, { appId, type: 'secret', network: 'testnet' });
      const fund = () =>
        call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', {
          headers: { 'x-service-api-key': key.key },
          body: { publicKey: VALID_G },
        });
      assert.notEqual((await fund()).body.code, 'APPLICATION_NOT_FOUND');

      const archived = await owner.call('archiveApp', 'POST', `/api/v1/apps/${appId}/archive`);
      assert.equal(archived.status, 200);
      assert.equal(archived.body.code, 'APP_ARCHIVED');
      assert.equal(archived.body.content.status, 'archived');
      assert.ok(archived.body.content.archivedAt);

      const again = await owner.call('archiveApp', 'POST', `/api/v1/apps/${appId}/archive`);
      assert.equal(again.status, 200, 'archiving an archived app answers the app');
      assert.equal(again.body.content.archivedAt, archived.body.content.archivedAt, 'the first archive time is kept');

      const listed = await owner.call('listApps', 'GET', '/api/v1/apps');
      assert.ok(!listed.body.content.apps.some((a: any) => a.appId === appId));
      const withArchived = await owner.call('listApps', 'GET', '/api/v1/apps?includeArchived=true');
      assert.equal(withArchived.body.content.apps.find((a: any) => a.appId === appId)?.status, 'archived');
      const read = await developer.call('getApp', 'GET', `/api/v1/apps/${appId}`);
      assert.equal(read.status, 200);
      assert.equal(read.body.content.status, 'archived');

      const hidden = [
        await owner.call('updateApp', 'PATCH', `/api/v1/apps/${appId}`, { body: { name: 'No' } }),
        await owner.call('listMembers', 'GET', `/api/v1/apps/${appId}/members`),
        await owner.call('addMember', 'POST', `/api/v1/apps/${appId}/members`, {
          body: { email: outsider.email, role: 'developer' },
        }),
        await owner.call('getAppDomains', 'GET', `/api/v1/apps/${appId}/domains`),
        await owner.call('updateAppDomains', 'PUT', `/api/v1/apps/${appId}/domains`, {
          body: { origins: [], redirectUris: [] },
        }),
      ];
      assert.deepEqual(
        hidden.map((r) => `${r.status} ${r.body.code}`),
        Array(hidden.length).fill('404 APPLICATION_NOT_FOUND'),
      );
      const refused = await fund();
      assert.equal(refused.status, 404);
      assert.equal(refused.body.code, 'APPLICATION_NOT_FOUND');

      const restored = await owner.call('restoreApp', 'POST', `/api/v1/apps/${appId}/restore`);
      assert.equal(restored.status, 200);
      assert.equal(restored.body.code, 'APP_RESTORED');
      assert.equal(restored.body.content.status, 'active');
      assert.equal(restored.body.content.archivedAt, null);
      assert.ok(
        (await owner.call('listApps', 'GET', '/api/v1/apps')).body.content.apps.some((a: any) => a.appId === appId),
      );
      assert.notEqual((await fund()).body.code, 'APPLICATION_NOT_FOUND', 'the key works again');

      const restoredAgain = await owner.call('restoreApp', 'POST', `/api/v1/apps/${appId}/restore`);
      assert.equal(restoredAgain.status, 200, 'restoring an active app answers the app');
      assert.equal(restoredAgain.body.content.status, 'active');
    });
  });
});
