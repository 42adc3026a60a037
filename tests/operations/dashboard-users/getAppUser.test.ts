// getAppUser (GET /api/v1/apps/{appId}/users/{userId}): get one of the app's users. Shared set-up: setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { findOrCreateUser, recordSignIn } from '../../../src/domain/users/users';
import { creds, list, owner, signedIn, svc, useService } from './setup';

describe('getAppUser', () => {
  useService();

  test('one user: every provider used and every wallet; the provider of the latest sign-in in the list', async () => {
    const ada = signedIn[0]!;
    await findOrCreateUser(svc.deps.db, {
      appId: creds.app.id,
      identity: { provider: 'google', subject: 'google-ada', email: ada.email },
      now: new Date(),
    });
    await recordSignIn(svc.deps.db, ada.userId, 'google', new Date());
    const res = await owner.call('getAppUser', 'GET', `/api/v1/apps/${creds.app.id}/users/${ada.userId}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.code, 'APP_USER_FETCHED');
    assert.equal(res.body.content.userId, ada.userId);
    assert.deepEqual(res.body.content.providers, ['email', 'google']);
    assert.deepEqual(res.body.content.wallets, [ada.signIn.wallet]);
    const row = (await list(`?search=${encodeURIComponent(ada.email)}`)).body.content.users[0];
    assert.equal(row.provider, 'google');
  });

  test("an unknown user, or a user of another of the operator's apps: 404 USER_NOT_FOUND", async () => {
    const otherApp = await owner.call('createApp', 'POST', '/api/v1/apps', {
      body: { name: 'Second', network: 'testnet' },
    });
    const otherAppId = otherApp.body.content.appId;
    const stranger = await findOrCreateUser(svc.deps.db, {
      appId: otherAppId,
      identity: { provider: 'github', subject: '77', email: null },
      now: new Date(),
    });
    for (const userId of [stranger.id, 'usr_doesnotexist00000000000']) {
      const res = await owner.call('getAppUser', 'GET', `/api/v1/apps/${creds.app.id}/users/${userId}`);
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'USER_NOT_FOUND');
    }
    const inItsApp = await owner.call('getAppUser', 'GET', `/api/v1/apps/${otherAppId}/users/${stranger.id}`);
    assert.equal(inItsApp.status, 200);
    assert.equal(inItsApp.body.content.email, null);
    assert.deepEqual(inItsApp.body.content.providers, ['github']);
    assert.deepEqual(inItsApp.body.content.wallets, []);
    assert.equal((await list('', owner, otherAppId)).body.content.users[0].userId, stranger.id);
  });
});
