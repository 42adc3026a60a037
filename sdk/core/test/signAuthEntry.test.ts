// tx.signAuthEntry against the live service on localnet: the session's custodial wallet signs a Soroban authorization
// entry the app's allowlist permits (verified by localnet's verifier), and a denial comes back as an error outcome
// naming the app, never as an exception.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { tx } from '../src/index';
import { verifyAuthEntrySignature } from '../../../src/localnet/engine/sorobanAuth';
import { appWithWallet, gatewayOf } from '../../../tests/support/funding';
import { call } from '../../../tests/support/http';
import { testEmail } from '../../../tests/support/operators';
import { startTestService, type TestService } from '../../../tests/support/service';
import { installContract, unsignedEntry } from '../../../tests/support/sorobanAuth';
import { signInLiveUser } from './liveUser';

/** JSON for assertion messages (a verification carries its nonce as a bigint). */
const show = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));

let svc: TestService;
let publishableKey: string;
let appId: string;
let token: string;

before(async () => {
  svc = await startTestService();
  const seeded = await appWithWallet(svc, { settings: { fundingMode: 'deferred' }, funded: false });
  publishableKey = seeded.creds.publishableKey;
  appId = seeded.app.id;
  token = installContract(svc, ['transfer', 'burn']);
  const row = await call(svc.url, 'createAuthPolicyRow', 'POST', '/v1/auth-policy/rows', {
    headers: { 'x-service-api-key': seeded.creds.secretKey },
    body: { contract: token, functions: ['transfer'] },
  });
  assert.equal(row.status, 201, row.text);
});
after(async () => {
  await svc?.stop();
});

const signedIn = () => signInLiveUser(svc, publishableKey, { email: testEmail('sdk-auth-entry') });

test('tx.signAuthEntry: signed for the wallet when allowlisted; a denial is an error outcome naming the app', async () => {
  const client = await signedIn();
  const wallet = client.session?.wallet.publicKey;
  assert.ok(wallet, 'the session names its wallet');
  const latest = (await gatewayOf(svc).ledgerFigures()).sequence;

  const signed = await tx.signAuthEntry(client.api, {
    entry: unsignedEntry(wallet, { contract: token, fn: 'transfer' }),
    validUntilLedger: latest + 50,
  });
  assert.equal(signed.status, 'signed', JSON.stringify(signed));
  assert.ok(signed.status === 'signed');
  assert.equal(signed.publicKey, wallet);
  assert.equal(signed.validUntilLedger, latest + 50);
  const verified = verifyAuthEntrySignature(signed.signedEntry, gatewayOf(svc).networkPassphrase, latest);
  assert.ok(verified.valid && verified.signers[0] === wallet, show(verified));

  const denied = await tx.signAuthEntry(client.api, { entry: unsignedEntry(wallet, { contract: token, fn: 'burn' }) });
  assert.equal(denied.status, 'error');
  assert.ok(denied.status === 'error');
  assert.equal(denied.code, 'SOROBAN_AUTH_FUNCTION_NOT_ALLOWED');
  assert.equal(denied.httpStatus, 403);
  assert.equal(denied.details?.applicationId, appId);
  assert.match(denied.message ?? '', /"burn"/);
});
