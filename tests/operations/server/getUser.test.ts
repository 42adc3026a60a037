// getUser (GET /v1/users/{externalId}): get a user by the app's own id. Shared set-up: externalId.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedCredentials } from '../../support/credentials';
import { signInUser } from '../../support/users';
import { creds, getUser, setExternalId, svc, useService } from './externalId.setup';

describe('getUser', () => {
  useService();

  test('set, then get by it: the user with providers and wallet', async () => {
    const user = await signInUser(svc, creds);
    const set = await setExternalId(user.userId, 'customer-4711');
    assert.equal(set.status, 200);
    assert.equal(set.body.code, 'SERVER_USER_EXTERNAL_ID_SET');
    assert.equal(set.body.content.externalId, 'customer-4711');
    const got = await getUser('customer-4711');
    assert.equal(got.status, 200);
    assert.equal(got.body.code, 'SERVER_USER_FETCHED');
    const content = got.body.content;
    assert.equal(content.userId, user.userId);
    assert.equal(content.email, user.email);
    assert.deepEqual(content.providers, ['email']);
    assert.deepEqual(content.wallets, [user.signIn.wallet]);
    assert.ok(content.lastSeenAt);
    assert.deepEqual(set.body.content, content);
  });

  test("users and external ids of another app are not found with this app's key", async () => {
    const otherApp = await seedCredentials(svc.deps.db);
    const stranger = await signInUser(svc, otherApp);
    await setExternalId(stranger.userId, 'other-app-customer', otherApp.secretKey);
    const get = await getUser('other-app-customer');
    assert.equal(get.status, 404);
    assert.equal(get.body.code, 'USER_NOT_FOUND');
    const set = await setExternalId(stranger.userId, 'hijack');
    assert.equal(set.status, 404);
    assert.equal(set.body.code, 'USER_NOT_FOUND');
    assert.equal((await setExternalId('usr_doesnotexist00000000000', 'x')).body.code, 'USER_NOT_FOUND');
    // the same externalId may be used in each app
    const mine = await signInUser(svc, creds);
    assert.equal((await setExternalId(mine.userId, 'other-app-customer')).status, 200);
  });
});
