// getKycVerification (GET /v1/kyc/verifications/{verificationId}) with real end-user sessions (email sign-in, DPoP)
// against the real service with KYC_SANDBOX on, every answer checked against the contract: a verification pending,
// then decided on the sandbox page; 410 SDK_KYC_SESSION_EXPIRED for a session that expired undecided (its row's
// session_expires_at moved into the past); 404 SDK_KYC_VERIFICATION_NOT_FOUND for an unknown id and for another user's
// verification; 400 for a malformed id; 401 without a session.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call } from '../../support/http';
import { startTestService, type TestService } from '../../support/service';
import { signInUser, type UserClient } from '../../support/users';
import { decideSandboxKyc, expireKycSession, kycAppUser, startSandboxKyc } from '../../support/kyc';

let svc: TestService;
before(async () => {
  svc = await startTestService({ KYC_SANDBOX: 'on' });
});
after(async () => {
  await svc?.stop();
});

const pathOf = (verificationId: string) => `/v1/kyc/verifications/${verificationId}`;
const read = (user: UserClient, verificationId: string) =>
  user.call('getKycVerification', 'GET', pathOf(verificationId));

const row = (verificationId: string) => svc.deps.db('kyc_verifications').where({ id: verificationId }).first();

describe('getKycVerification', () => {
  test('pending after the start, then approved once decided on the sandbox page', async () => {
    const { user } = await kycAppUser(svc);
    const session = await startSandboxKyc(user, 'intermediate');
    const pending = await read(user, session.verificationId);
    assert.equal(pending.status, 200, pending.text);
    assert.equal(pending.body.code, 'SDK_KYC_VERIFICATION_FETCHED');
    const started = await row(session.verificationId);
    assert.deepEqual(pending.body.content, {
      verificationId: session.verificationId,
      providerId: 'sandbox',
      level: 'intermediate',
      status: 'pending',
      updatedAt: started.created_at.toISOString(),
    });

    await decideSandboxKyc(session.kycUrl, 'approved');
    const approved = await read(user, session.verificationId);
    const decided = await row(session.verificationId);
    assert.deepEqual(approved.body.content, {
      ...pending.body.content,
      status: 'approved',
      updatedAt: decided.decided_at.toISOString(),
    });
    assert.ok(decided.decided_at.getTime() >= started.created_at.getTime());
  });

  test('rejected once decided; a decision stays readable after the session expires', async () => {
    const { user } = await kycAppUser(svc);
    const rejected = await startSandboxKyc(user, 'enhanced');
    await decideSandboxKyc(rejected.kycUrl, 'rejected');
    assert.deepEqual(
      [(await read(user, rejected.verificationId)).body.content.status, (await row(rejected.verificationId)).level],
      ['rejected', 'enhanced'],
    );
    const approved = await startSandboxKyc(user);
    await decideSandboxKyc(approved.kycUrl, 'approved');
    for (const v of [rejected, approved]) await expireKycSession(svc.deps.db, v.verificationId);
    assert.equal((await read(user, rejected.verificationId)).body.content.status, 'rejected');
    assert.equal((await read(user, approved.verificationId)).body.content.status, 'approved');
  });

  test('410 SDK_KYC_SESSION_EXPIRED for a session that expired undecided; a new session is readable', async () => {
    const { user } = await kycAppUser(svc);
    const lapsed = await startSandboxKyc(user);
    await expireKycSession(svc.deps.db, lapsed.verificationId);
    const res = await read(user, lapsed.verificationId);
    assert.deepEqual([res.status, res.body.code, res.body.success], [410, 'SDK_KYC_SESSION_EXPIRED', false], res.text);
    assert.equal((await read(user, lapsed.verificationId)).status, 410, 'every time');
    const retried = await startSandboxKyc(user);
    assert.equal((await read(user, retried.verificationId)).body.content.status, 'pending');
  });

  test("404 SDK_KYC_VERIFICATION_NOT_FOUND for an unknown id, another user's, and another app's user's verification", async () => {
    const { creds, user } = await kycAppUser(svc);
    const mine = await startSandboxKyc(user);
    const neighbour = await signInUser(svc, creds);
    const elsewhere = (await kycAppUser(svc)).user;
    for (const [reader, verificationId] of [
      [user, 'kyv_0000000000000000000000'],
      [neighbour, mine.verificationId],
      [elsewhere, mine.verificationId],
    ] as const) {
      const res = await read(reader, verificationId);
      assert.deepEqual([res.status, res.body.code], [404, 'SDK_KYC_VERIFICATION_NOT_FOUND'], res.text);
    }
    assert.equal((await read(user, mine.verificationId)).status, 200, 'the owner still reads it');
  });

  test('400 VALIDATION_ERROR for a malformed verification id', async () => {
    const { user } = await kycAppUser(svc);
    const session = await startSandboxKyc(user);
    for (const id of [
      'abc',
      'kyv_',
      'kys_0123456789',
      `kyv_${'a'.repeat(61)}`,
      'kyv_0a-b',
      session.verificationId.toUpperCase(),
    ]) {
      const res = await read(user, encodeURIComponent(id));
      assert.deepEqual([res.status, res.body?.code], [400, 'VALIDATION_ERROR'], `${id}: ${res.text}`);
      assert.ok(res.body.details?.fieldErrors?.['path.verificationId'], JSON.stringify(res.body.details));
    }
  });

  test('401 without a session (the publishable key alone)', async () => {
    const { creds, user } = await kycAppUser(svc);
    const session = await startSandboxKyc(user);
    const res = await call(svc.url, 'getKycVerification', 'GET', pathOf(session.verificationId), {
      headers: { 'x-service-api-key': creds.publishableKey },
    });
    assert.equal(res.status, 401, res.text);
  });
});
