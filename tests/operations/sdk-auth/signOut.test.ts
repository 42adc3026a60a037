// signOut (POST /v1/auth/logout): sign out. Shared set-up: sessions.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { signInUser } from '../../support/users';
import { refresh, svc, twoDevices, useService } from './sessions.setup';

describe('signOut', () => {
  useService();

  test('sign-out ends this session at once (access and refresh tokens) and leaves the other device signed in', async () => {
    const { a, b } = await twoDevices();
    const out = await a.call('signOut', 'POST', '/v1/auth/logout');
    assert.equal(out.status, 200);
    assert.deepEqual(out.body.content, { everywhere: false, revokedSessions: 1 });
    assert.equal((await a.rawCall('GET', '/v1/auth/sessions')).body.code, 'SDK_AUTH_INVALID_TOKEN');
    assert.equal((await refresh(svc, a, a.refreshToken)).body.code, 'SDK_REFRESH_TOKEN_INVALID');
    assert.equal((await b.rawCall('GET', '/v1/auth/sessions')).status, 200);
  });

  test("sign-out everywhere ends every session of the user in the app, and no one else's", async () => {
    const { creds, a, b } = await twoDevices();
    const someoneElse = await signInUser(svc, creds);
    const out = await a.call('signOut', 'POST', '/v1/auth/logout', { body: { everywhere: true } });
    assert.deepEqual(out.body.content, { everywhere: true, revokedSessions: 2 });
    assert.equal((await b.rawCall('GET', '/v1/auth/sessions')).status, 401);
    assert.equal((await someoneElse.rawCall('GET', '/v1/auth/sessions')).status, 200);
  });
});
