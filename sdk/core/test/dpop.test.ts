// @onboard/core with DPoP against the live service: an operator signs in by email code through the client (the
// nonce dance happens inside), the session's calls carry token and proof, refresh rotates, and the signer's private
// key cannot be exported.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDpopSigner, createOnboardClient } from '../src/index';
import { latestCode, testEmail } from '../../../tests/support/operators';
import { startTestService, type TestService } from '../../../tests/support/service';

let svc: TestService;
before(async () => {
  svc = await startTestService({ LOCALNET: 'off' });
});
after(async () => {
  await svc?.stop();
});

test('an operator signs in, calls the Dashboard API and refreshes through the client, with DPoP handled inside', async () => {
  const dpop = await createDpopSigner();
  const client = createOnboardClient({ baseUrl: svc.url, dpop });
  const email = testEmail('sdk');
  const start = await client.startOperatorEmailSignIn({ body: { email } });
  assert.equal(start.ok, true);
  // The first proof has no nonce: the server answers use_dpop_nonce and the client retries with it.
  const signedIn = await client.verifyOperatorEmailSignIn({ body: { email, code: latestCode(svc, email) } });
  assert.ok(signedIn.ok, JSON.stringify(signedIn));
  client.session.set(signedIn.content.tokens);
  const me = await client.getCurrentOperator();
  assert.ok(me.ok, JSON.stringify(me));
  assert.equal(me.content.operator.email, email);
  const refreshed = await client.refreshOperatorSession({
    body: { refreshToken: client.session.current()!.refreshToken },
  });
  assert.ok(refreshed.ok, JSON.stringify(refreshed));
  client.session.set(refreshed.content);
  assert.equal((await client.getCurrentOperator()).ok, true);
  // Tokens are bound to this device's key: another signer cannot use them.
  const thief = createOnboardClient({ baseUrl: svc.url, dpop: await createDpopSigner() });
  thief.session.set(refreshed.content);
  const stolen = await thief.getCurrentOperator();
  assert.equal(stolen.ok, false);
  assert.equal(!stolen.ok && stolen.code, 'SDK_AUTH_DPOP_INVALID');
});

test('the default signer keeps its private key non-extractable', async () => {
  const { generateKeyPair } = await import('jose');
  const pair = await generateKeyPair('ES256', { extractable: false });
  const signer = await createDpopSigner(pair);
  assert.match(signer.jkt, /^[A-Za-z0-9_-]{43}$/);
  await assert.rejects(crypto.subtle.exportKey('jwk', pair.privateKey));
});
