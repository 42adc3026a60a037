// The sandbox KYC provider end to end: a user of a testnet app starts a verification through the SDK API, the
// developer opens its kycUrl (a page of this service) and approves or rejects, and the user's status follows. Each
// step through the contract's operations; the page through plain HTTP, as a browser would post its form.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedCredentials, type SeededCredentials } from '../support/credentials';
import { startTestService, type TestService } from '../support/service';
import { expireKycSession, postSandboxDecision, startSandboxKyc } from '../support/kyc';
import { signInUser } from '../support/users';

describe('KYC with the sandbox provider', () => {
  let svc: TestService;
  let creds: SeededCredentials;
  before(async () => {
    svc = await startTestService({ KYC_SANDBOX: 'on' });
    creds = await seedCredentials(svc.deps.db);
  });
  after(async () => {
    await svc?.stop();
  });

  test('none -> pending -> approved: the page approves, the verification and the status follow', async () => {
    const user = await signInUser(svc, creds);
    const listed = await user.call('listKycProviders', 'GET', '/v1/kyc/providers');
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(listed.body.content, {
      providers: [
        {
          providerId: 'sandbox',
          name: 'Sandbox (development)',
          enabled: true,
          levels: ['basic', 'intermediate', 'enhanced'],
        },
      ],
      status: 'none',
      verificationId: null,
    });
    const session = await startSandboxKyc(user, 'intermediate');
    assert.ok(session.kycUrl.startsWith(`${svc.url}/sandbox/kyc/${session.sessionId}`), session.kycUrl);
    const pending = await user.call('getKycVerification', 'GET', `/v1/kyc/verifications/${session.verificationId}`);
    assert.deepEqual([pending.body.content.status, pending.body.content.level], ['pending', 'intermediate']);

    const pageRes = await fetch(session.kycUrl);
    assert.equal(pageRes.status, 200);
    const html = await pageRes.text();
    assert.match(html, /Approve/);
    assert.match(pageRes.headers.get('content-security-policy') ?? '', /form-action 'self'/);
    const approved = await postSandboxDecision(session.kycUrl, 'approved');
    assert.equal(approved.status, 200);
    assert.match(await approved.text(), /The verification is approved/);

    const read = await user.call('getKycVerification', 'GET', `/v1/kyc/verifications/${session.verificationId}`);
    assert.equal(read.body.content.status, 'approved');
    const after = await user.call('listKycProviders', 'GET', '/v1/kyc/providers');
    assert.deepEqual(
      [after.body.content.status, after.body.content.verificationId],
      ['approved', session.verificationId],
    );
    // A decided session keeps its first decision.
    await postSandboxDecision(session.kycUrl, 'rejected');
    const still = await user.call('getKycVerification', 'GET', `/v1/kyc/verifications/${session.verificationId}`);
    assert.equal(still.body.content.status, 'approved');
  });

  test('rejected; an expired session answers 410 SDK_KYC_SESSION_EXPIRED and counts as none', async () => {
    const user = await signInUser(svc, creds);
    const rejected = await startSandboxKyc(user);
    await postSandboxDecision(rejected.kycUrl, 'rejected');
    const listed = await user.call('listKycProviders', 'GET', '/v1/kyc/providers');
    assert.deepEqual(
      [listed.body.content.status, listed.body.content.verificationId],
      ['rejected', rejected.verificationId],
    );

    const lapsed = await startSandboxKyc(user);
    await expireKycSession(svc.deps.db, lapsed.verificationId);
    const read = await user.call('getKycVerification', 'GET', `/v1/kyc/verifications/${lapsed.verificationId}`);
    assert.deepEqual([read.status, read.body.code], [410, 'SDK_KYC_SESSION_EXPIRED']);
    const page = await postSandboxDecision(lapsed.kycUrl, 'approved');
    assert.equal(page.status, 410);
    const status = await user.call('listKycProviders', 'GET', '/v1/kyc/providers');
    assert.deepEqual([status.body.content.status, status.body.content.verificationId], ['none', lapsed.verificationId]);
  });

  test('another user cannot read a verification; unknown ids, providers and bad page input are refused', async () => {
    const [a, b] = [await signInUser(svc, creds), await signInUser(svc, creds)];
    const session = await startSandboxKyc(a);
    const theirs = await b.call('getKycVerification', 'GET', `/v1/kyc/verifications/${session.verificationId}`);
    assert.deepEqual([theirs.status, theirs.body.code], [404, 'SDK_KYC_VERIFICATION_NOT_FOUND']);
    const unknown = await a.call('startKycSession', 'POST', '/v1/kyc/sessions', {
      body: { providerId: 'acme', level: 'basic' },
    });
    assert.deepEqual([unknown.status, unknown.body.code], [404, 'SDK_KYC_PROVIDER_NOT_FOUND']);
    assert.equal((await fetch(`${svc.url}/sandbox/kyc/kys_nope`)).status, 404);
    assert.equal((await fetch(`${svc.url}/sandbox/kyc/not-a-session`)).status, 404);
    assert.equal((await postSandboxDecision(session.kycUrl, 'maybe')).status, 400);
  });
});
