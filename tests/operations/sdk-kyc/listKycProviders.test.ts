// listKycProviders (GET /v1/kyc/providers) with real end-user sessions (email sign-in, DPoP) against the real service
// with KYC_SANDBOX on, every answer checked against the contract: the app's providers as configured (the sandbox by
// default, switched off, removed; none with KYC_SANDBOX off) and the session user's status: none, pending, rejected,
// approved (which wins over any later verification), an expired undecided session counting as none. Verifications are
// started through startKycSession and decided on the sandbox page, as a developer would; settings are saved through
// the domain module (the Dashboard's operations are tested in tests/operations/dashboard-settings).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { App } from '../../../src/domain/apps/store';
import { SYSTEM_ACTOR } from '../../../src/domain/audit/auditLog';
import { updateKycSettings, type KycSettingsInput } from '../../../src/domain/kyc/settings';
import { seedCredentials } from '../../support/credentials';
import { call } from '../../support/http';
import { startTestService, type TestService } from '../../support/service';
import { signInUser, type UserClient } from '../../support/users';
import { decideSandboxKyc, expireKycSession, kycAppUser, startSandboxKyc } from '../../support/kyc';

const PATH = '/v1/kyc/providers';
const SANDBOX = { providerId: 'sandbox', name: 'Sandbox (development)' };

let svc: TestService;
before(async () => {
  svc = await startTestService({ KYC_SANDBOX: 'on' });
});
after(async () => {
  await svc?.stop();
});

const list = async (user: UserClient) => {
  const res = await user.call('listKycProviders', 'GET', PATH);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.code, 'SDK_KYC_PROVIDERS_LISTED');
  return res.body.content as { providers: unknown[]; status: string; verificationId: string | null };
};
const statusOf = async (user: UserClient) => {
  const { status, verificationId } = await list(user);
  return [status, verificationId];
};
const setKyc = (app: App, providers: KycSettingsInput['providers']) =>
  updateKycSettings(svc.deps, app, { providers }, { actor: SYSTEM_ACTOR, at: new Date() });

describe('listKycProviders', () => {
  test('a testnet app that never saved settings lists the sandbox at every level; a new user is none', async () => {
    const { user } = await kycAppUser(svc);
    assert.deepEqual(await list(user), {
      providers: [{ ...SANDBOX, enabled: true, levels: ['basic', 'intermediate', 'enhanced'] }],
      status: 'none',
      verificationId: null,
    });
  });

  test('the providers as the app saved them: levels, switched off (listed, not enabled), removed', async () => {
    const { creds, user } = await kycAppUser(svc);
    await setKyc(creds.app, [{ providerId: 'sandbox', enabled: true, levels: ['intermediate'] }]);
    assert.deepEqual((await list(user)).providers, [{ ...SANDBOX, enabled: true, levels: ['intermediate'] }]);
    await setKyc(creds.app, [{ providerId: 'sandbox', enabled: false, levels: ['basic', 'enhanced'] }]);
    assert.deepEqual((await list(user)).providers, [{ ...SANDBOX, enabled: false, levels: ['basic', 'enhanced'] }]);
    // Switched off without a level: nothing to offer (the contract's levels has at least one), so not listed.
    await setKyc(creds.app, [{ providerId: 'sandbox', enabled: false, levels: [] }]);
    assert.deepEqual((await list(user)).providers, []);
    await setKyc(creds.app, []);
    assert.deepEqual(await list(user), { providers: [], status: 'none', verificationId: null });
  });

  test('the status follows the verifications: none, pending, rejected, pending again, approved', async () => {
    const { user } = await kycAppUser(svc);
    assert.deepEqual(await statusOf(user), ['none', null]);
    const first = await startSandboxKyc(user);
    assert.deepEqual(await statusOf(user), ['pending', first.verificationId]);
    await decideSandboxKyc(first.kycUrl, 'rejected');
    assert.deepEqual(await statusOf(user), ['rejected', first.verificationId]);
    const second = await startSandboxKyc(user);
    assert.deepEqual(await statusOf(user), ['pending', second.verificationId], 'the latest counts');
    await decideSandboxKyc(second.kycUrl, 'approved');
    assert.deepEqual(await statusOf(user), ['approved', second.verificationId]);
  });

  test('approved wins over a later rejected, pending or expired verification', async () => {
    const { user } = await kycAppUser(svc);
    const approved = await startSandboxKyc(user);
    await decideSandboxKyc(approved.kycUrl, 'approved');
    const rejected = await startSandboxKyc(user);
    await decideSandboxKyc(rejected.kycUrl, 'rejected');
    assert.deepEqual(await statusOf(user), ['approved', approved.verificationId]);
    const pending = await startSandboxKyc(user);
    assert.deepEqual(await statusOf(user), ['approved', approved.verificationId]);
    await expireKycSession(svc.deps.db, pending.verificationId);
    assert.deepEqual(await statusOf(user), ['approved', approved.verificationId]);
  });

  test('a latest session that expired undecided counts as none (with its id); a decided one keeps its decision', async () => {
    const { user } = await kycAppUser(svc);
    const rejected = await startSandboxKyc(user);
    await decideSandboxKyc(rejected.kycUrl, 'rejected');
    await expireKycSession(svc.deps.db, rejected.verificationId);
    assert.deepEqual(await statusOf(user), ['rejected', rejected.verificationId], 'decided before it expired');
    const lapsed = await startSandboxKyc(user);
    await expireKycSession(svc.deps.db, lapsed.verificationId);
    assert.deepEqual(await statusOf(user), ['none', lapsed.verificationId]);
    const retried = await startSandboxKyc(user);
    assert.deepEqual(await statusOf(user), ['pending', retried.verificationId]);
  });

  test("a user's status is their own: another user of the app, and a user of another app, are none", async () => {
    const { creds, user } = await kycAppUser(svc);
    const mine = await startSandboxKyc(user);
    await decideSandboxKyc(mine.kycUrl, 'approved');
    const neighbour = await signInUser(svc, creds);
    const elsewhere = (await kycAppUser(svc)).user;
    assert.deepEqual(await statusOf(user), ['approved', mine.verificationId]);
    assert.deepEqual(await statusOf(neighbour), ['none', null]);
    assert.deepEqual(await statusOf(elsewhere), ['none', null]);
  });

  test('with KYC_SANDBOX off, a testnet app lists no provider', async () => {
    const off = await startTestService({ KYC_SANDBOX: 'off' });
    try {
      const user = await signInUser(off, await seedCredentials(off.deps.db));
      const res = await user.call('listKycProviders', 'GET', PATH);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.content, { providers: [], status: 'none', verificationId: null });
    } finally {
      await off.stop();
    }
  });

  test('401 without a session (the publishable key alone)', async () => {
    const { creds } = await kycAppUser(svc);
    const res = await call(svc.url, 'listKycProviders', 'GET', PATH, {
      headers: { 'x-service-api-key': creds.publishableKey },
    });
    assert.equal(res.status, 401, res.text);
  });
});
