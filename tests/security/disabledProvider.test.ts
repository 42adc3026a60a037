// Security finding 4 (issue #23): a disabled sign-in provider still signed users in. With email sign-in turned off
// (updateAuthProviders), start and verify answered 200 and created a user with a funded wallet. Now both answer 403
// AUTH_PROVIDER_DISABLED (a code sent before stays unused), while sessions started before are kept, as the contract
// of updateAuthProviders says. Google and GitHub: disabling them answers OAUTH_PROVIDER_NOT_CONFIGURED
// (tests/integration/oauthUsers.test.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { updateAuthProviders } from '../../src/domain/oauth/appProviders';
import type { SeededCredentials } from '../support/credentials';
import { createDpopKey } from '../support/dpop';
import { latestCode, sendWithProof, testEmail } from '../support/operators';
import { startTestService, type TestService } from '../support/service';
import { signInUser, startUserEmailSignIn } from '../support/users';
import { appWithWallet } from '../support/funding';

let svc: TestService;
let creds: SeededCredentials;

before(async () => {
  svc = await startTestService();
  ({ creds } = await appWithWallet(svc, { settings: { fundingMode: 'immediate' } }));
});
after(async () => {
  await svc?.stop();
});

async function setEmailSignIn(enabled: boolean): Promise<void> {
  const off = { enabled: false };
  await updateAuthProviders(
    svc.deps.db,
    svc.deps.secrets,
    creds.app.id,
    { email: { enabled }, google: off, github: off },
    new Date(),
  );
}

async function verify(email: string, code: string) {
  const key = await createDpopKey();
  return sendWithProof(svc.url, key, {}, 'POST', '/v1/auth/email/verify', {
    headers: { 'x-service-api-key': creds.publishableKey },
    body: { email, code },
  });
}

describe('email sign-in turned off', () => {
  test('start and verify answer 403 AUTH_PROVIDER_DISABLED, no user is created, existing sessions work, turning it on again works', async () => {
    const existing = await signInUser(svc, creds);
    const email = testEmail('late-user');
    const started = await startUserEmailSignIn(svc, creds.publishableKey, email);
    assert.equal(started.status, 200, started.text);
    const code = latestCode(svc, email);

    await setEmailSignIn(false);
    try {
      const again = await startUserEmailSignIn(svc, creds.publishableKey, testEmail('other'));
      assert.equal(again.status, 403, again.text);
      assert.equal(again.body.code, 'AUTH_PROVIDER_DISABLED');
      const refused = await verify(email, code);
      assert.equal(refused.status, 403, refused.text);
      assert.equal(refused.body.code, 'AUTH_PROVIDER_DISABLED');
      assert.equal((await svc.deps.db('users').where({ app_id: creds.app.id, email })).length, 0, 'no user created');

      // The session started before is kept.
      const wallet = await existing.rawCall('GET', '/v1/wallet');
      assert.equal(wallet.status, 200, wallet.text);
    } finally {
      await setEmailSignIn(true);
    }
    // The code sent before was never used: it works once sign-in is on again.
    const ok = await verify(email, code);
    assert.equal(ok.status, 200, ok.text);
  });
});
