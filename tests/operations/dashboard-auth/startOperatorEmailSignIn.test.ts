// startOperatorEmailSignIn (POST /api/v1/auth/email/start): send an operator a sign-in code by email.
// Shared set-up: emailSignIn.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call } from '../../support/http';
import { outboxFor, signInOperator, testEmail } from '../../support/operators';
import { svc, useService } from './emailSignIn.setup';

describe('startOperatorEmailSignIn', () => {
  useService();

  test('start answers the same for a known and an unknown address (no enumeration)', async () => {
    const known = await signInOperator(svc);
    await svc.deps
      .db('email_codes')
      .where({ email: known.email })
      .update({ sent_at: new Date(Date.now() - 61_000) });
    const a = await call(svc.url, 'startOperatorEmailSignIn', 'POST', '/api/v1/auth/email/start', {
      body: { email: known.email },
    });
    const b = await call(svc.url, 'startOperatorEmailSignIn', 'POST', '/api/v1/auth/email/start', {
      body: { email: testEmail('nobody') },
    });
    assert.equal(a.status, 200);
    assert.deepEqual(a.body, b.body);
  });

  test('a second code within 60 s is refused with Retry-After', async () => {
    const email = testEmail();
    assert.equal(
      (await call(svc.url, 'startOperatorEmailSignIn', 'POST', '/api/v1/auth/email/start', { body: { email } })).status,
      200,
    );
    const again = await call(svc.url, 'startOperatorEmailSignIn', 'POST', '/api/v1/auth/email/start', {
      body: { email },
    });
    assert.equal(again.status, 429);
    assert.equal(again.body.code, 'RATE_LIMITED');
    assert.ok(Number(again.headers.get('retry-after')) > 0);
    assert.equal(outboxFor(svc, email).length, 1, 'one email only');
  });
});
