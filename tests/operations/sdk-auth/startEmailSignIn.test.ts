// startEmailSignIn (POST /v1/auth/email/start): send an email sign-in code. Shared set-up: emailSignIn.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedCredentials } from '../../support/credentials';
import { latestCode, outboxFor, testEmail } from '../../support/operators';
import { signInUser, startUserEmailSignIn } from '../../support/users';
import { allowResend, freshApp, svc, useService } from './emailSignIn.setup';

describe('startEmailSignIn', () => {
  useService();

  test('start answers the same for a known and an unknown address (no user enumeration)', async () => {
    const creds = await freshApp();
    const known = await signInUser(svc, creds);
    await allowResend(known.email);
    const a = await startUserEmailSignIn(svc, creds.publishableKey, known.email);
    const b = await startUserEmailSignIn(svc, creds.publishableKey, testEmail('nobody'));
    assert.equal(a.status, 200);
    assert.deepEqual(a.body, b.body);
    assert.deepEqual(a.body.content, { sent: true, expiresInSeconds: 600, resendAfterSeconds: 60 });
  });

  test('the email names the app and carries the code; a second code within 60 s: 429 with Retry-After, one email', async () => {
    const creds = await seedCredentials(svc.deps.db, { name: 'Acme Wallet' });
    const email = testEmail('user');
    assert.equal((await startUserEmailSignIn(svc, creds.publishableKey, email)).status, 200);
    const again = await startUserEmailSignIn(svc, creds.publishableKey, email);
    assert.equal(again.status, 429);
    assert.equal(again.body.code, 'RATE_LIMITED');
    assert.ok(Number(again.headers.get('retry-after')) > 0);
    const mails = outboxFor(svc, email);
    assert.equal(mails.length, 1, 'one email only');
    assert.match(mails[0]!.subject, /Acme Wallet/);
    assert.match(mails[0]!.text, /Acme Wallet/);
    assert.match(mails[0]!.text, new RegExp(latestCode(svc, email)));
  });
});
