// signOutOperator (POST /api/v1/auth/logout): sign the operator out. Shared set-up: refresh.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { signInOperator, testEmail } from '../../support/operators';
import { refresh, svc, useService } from './refresh.setup';

describe('signOutOperator', () => {
  useService();

  test('sign-out ends the session at once (access and refresh tokens); everywhere ends every session', async () => {
    const email = testEmail();
    const a = await signInOperator(svc, email);
    const out = await a.call('signOutOperator', 'POST', '/api/v1/auth/logout', { body: {} });
    assert.equal(out.status, 200);
    assert.deepEqual(out.body.content, { signedOut: true, revokedSessions: 1 });
    assert.equal((await a.rawCall('GET', '/api/v1/me')).body.code, 'SDK_AUTH_INVALID_TOKEN');
    assert.equal((await refresh(svc, a, a.refreshToken)).body.code, 'SDK_REFRESH_TOKEN_INVALID');

    await svc.deps
      .db('email_codes')
      .where({ email })
      .update({ sent_at: new Date(Date.now() - 61_000) });
    const b = await signInOperator(svc, email);
    await svc.deps
      .db('email_codes')
      .where({ email })
      .update({ sent_at: new Date(Date.now() - 61_000) });
    const c = await signInOperator(svc, email);
    const all = await b.call('signOutOperator', 'POST', '/api/v1/auth/logout', { body: { everywhere: true } });
    assert.equal(all.body.content.revokedSessions, 2);
    assert.equal((await c.rawCall('GET', '/api/v1/me')).status, 401);
  });
});
