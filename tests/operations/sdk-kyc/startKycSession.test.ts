// startKycSession (POST /v1/kyc/sessions) with real end-user sessions (email sign-in, DPoP) against the real service
// with KYC_SANDBOX on, every answer checked against the contract: a session with the sandbox provider (its kycUrl the
// service's own /sandbox/kyc/<sessionId> page, the verification recorded pending), and every refusal: 404
// SDK_KYC_PROVIDER_NOT_FOUND, 403 SDK_KYC_PROVIDER_NOT_ENABLED, 400 for a malformed body, 401 without a session, none of
// them recording anything. The app's KYC settings are saved through the domain module (the Dashboard's operations are
// tested in tests/operations/dashboard-settings).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { App } from '../../../src/domain/apps/store';
import { SYSTEM_ACTOR } from '../../../src/domain/audit/auditLog';
import { SANDBOX_SESSION_MINUTES } from '../../../src/domain/kyc/sandbox';
import { updateKycSettings, type KycSettingsInput } from '../../../src/domain/kyc/settings';
import { seedCredentials } from '../../support/credentials';
import { call } from '../../support/http';
import { startTestService, type TestService } from '../../support/service';
import { signInUser, type UserClient } from '../../support/users';
import { kycAppUser } from '../../support/kyc';

const PATH = '/v1/kyc/sessions';

let svc: TestService;
before(async () => {
  svc = await startTestService({ KYC_SANDBOX: 'on' });
});
after(async () => {
  await svc?.stop();
});

const start = (user: UserClient, body: unknown) => user.call('startKycSession', 'POST', PATH, { body });
const setKyc = (app: App, providers: KycSettingsInput['providers']) =>
  updateKycSettings(svc.deps, app, { providers }, { actor: SYSTEM_ACTOR, at: new Date() });
const rowsOf = (user: UserClient) => svc.deps.db('kyc_verifications').where({ user_id: user.userId });

/** Asserts a refusal with its status and code, and that the user has no verification. */
async function refused(
  user: UserClient,
  res: { status: number; body: any; text: string },
  status: number,
  code: string,
) {
  assert.deepEqual([res.status, res.body?.code], [status, code], res.text);
  assert.deepEqual(await rowsOf(user), [], 'nothing recorded');
}

describe('startKycSession', () => {
  test('opens a sandbox session at each level: kycUrl is the service page, the verification is recorded pending', async () => {
    const { creds, user } = await kycAppUser(svc);
    for (const level of ['basic', 'intermediate', 'enhanced']) {
      const before = Date.now();
      const res = await start(user, { providerId: 'sandbox', level });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.code, 'SDK_KYC_SESSION_STARTED');
      const { sessionId, verificationId, kycUrl, expiresAt } = res.body.content;
      assert.match(sessionId, /^kys_[0-9A-Za-z]+$/);
      assert.match(verificationId, /^kyv_[0-9A-Za-z]+$/);
      assert.equal(kycUrl, `${svc.url}/sandbox/kyc/${sessionId}`);
      const lifetime = new Date(expiresAt).getTime() - before;
      assert.ok(
        lifetime >= SANDBOX_SESSION_MINUTES * 60_000 - 1000 && lifetime <= SANDBOX_SESSION_MINUTES * 60_000 + 10_000,
        `expires in ${SANDBOX_SESSION_MINUTES} minutes (${lifetime} ms)`,
      );

      const row = await svc.deps.db('kyc_verifications').where({ id: verificationId }).first();
      assert.deepEqual(
        [row.app_id, row.user_id, row.provider_id, row.level, row.status, row.session_id, row.decided_at],
        [creds.app.id, user.userId, 'sandbox', level, 'pending', sessionId, null],
      );
      assert.equal(row.session_expires_at.toISOString(), expiresAt);

      const page = await fetch(kycUrl);
      assert.equal(page.status, 200);
      const html = await page.text();
      assert.match(html, /KYC app/);
      assert.match(html, new RegExp(`<dd>${level}</dd>`));
      assert.match(html, /Approve/);
    }
    assert.equal((await rowsOf(user)).length, 3, 'each start is a new verification');
  });

  test('a pending verification does not block another: each start has its own session and verification', async () => {
    const { user } = await kycAppUser(svc);
    const a = await start(user, { providerId: 'sandbox', level: 'basic' });
    const b = await start(user, { providerId: 'sandbox', level: 'basic' });
    assert.deepEqual([a.status, b.status], [201, 201]);
    assert.notEqual(a.body.content.sessionId, b.body.content.sessionId);
    assert.notEqual(a.body.content.verificationId, b.body.content.verificationId);
  });

  test('opens with the levels the app saved, and with credentials stored for the provider', async () => {
    const { creds, user } = await kycAppUser(svc);
    await setKyc(creds.app, [
      { providerId: 'sandbox', enabled: true, levels: ['enhanced'], credentials: { apiKey: 'sbx_start_test' } },
    ]);
    const res = await start(user, { providerId: 'sandbox', level: 'enhanced' });
    assert.equal(res.status, 201, res.text);
    assert.ok(!res.text.includes('sbx_start_test'));
  });

  test('404 SDK_KYC_PROVIDER_NOT_FOUND for a provider the service does not know, or the app removed', async () => {
    const { creds, user } = await kycAppUser(svc);
    for (const providerId of ['acme', '1kyc', 'sumsub']) {
      const res = await start(user, { providerId, level: 'basic' });
      await refused(user, res, 404, 'SDK_KYC_PROVIDER_NOT_FOUND');
    }
    await setKyc(creds.app, []);
    await refused(
      user,
      await start(user, { providerId: 'sandbox', level: 'basic' }),
      404,
      'SDK_KYC_PROVIDER_NOT_FOUND',
    );
  });

  test('404 SDK_KYC_PROVIDER_NOT_FOUND for the sandbox when KYC_SANDBOX is off; 403 if saved while it was on', async () => {
    const off = await startTestService({ KYC_SANDBOX: 'off' });
    try {
      const creds = await seedCredentials(off.deps.db);
      const user = await signInUser(off, creds);
      const res = await user.call('startKycSession', 'POST', PATH, { body: { providerId: 'sandbox', level: 'basic' } });
      assert.deepEqual([res.status, res.body.code], [404, 'SDK_KYC_PROVIDER_NOT_FOUND'], res.text);
      // Settings saved while the sandbox was offered (updateKycSettings now refuses it): the provider is not enabled.
      await off.deps.db('kyc_provider_settings').insert({
        app_id: creds.app.id,
        provider_id: 'sandbox',
        enabled: true,
        levels: ['basic'],
        updated_at: new Date(),
      });
      const saved = await user.call('startKycSession', 'POST', PATH, {
        body: { providerId: 'sandbox', level: 'basic' },
      });
      assert.deepEqual([saved.status, saved.body.code], [403, 'SDK_KYC_PROVIDER_NOT_ENABLED'], saved.text);
      // The user's list says so too: saved enabled, not offered here.
      const listed = await user.call('listKycProviders', 'GET', '/v1/kyc/providers');
      assert.deepEqual(
        listed.body.content.providers.map((p: { providerId: string; enabled: boolean }) => [p.providerId, p.enabled]),
        [['sandbox', false]],
      );
      assert.deepEqual(await off.deps.db('kyc_verifications').where({ user_id: user.userId }), []);
      assert.equal((await fetch(`${off.url}/sandbox/kyc/kys_0000000000`)).status, 404, 'no sandbox page');
    } finally {
      await off.stop();
    }
  });

  test('403 SDK_KYC_PROVIDER_NOT_ENABLED for a provider the app switched off, or a level it does not offer', async () => {
    const { creds, user } = await kycAppUser(svc);
    await setKyc(creds.app, [{ providerId: 'sandbox', enabled: false, levels: ['basic'] }]);
    const disabled = await start(user, { providerId: 'sandbox', level: 'basic' });
    await refused(user, disabled, 403, 'SDK_KYC_PROVIDER_NOT_ENABLED');
    assert.match(disabled.body.message, /not enabled/);

    await setKyc(creds.app, [{ providerId: 'sandbox', enabled: true, levels: ['basic', 'intermediate'] }]);
    const level = await start(user, { providerId: 'sandbox', level: 'enhanced' });
    await refused(user, level, 403, 'SDK_KYC_PROVIDER_NOT_ENABLED');
    assert.match(level.body.message, /basic, intermediate, not enhanced/);
    assert.equal((await start(user, { providerId: 'sandbox', level: 'intermediate' })).status, 201);
  });

  test('400 for a malformed body: VALIDATION_ERROR naming the field, INVALID_JSON for broken JSON', async () => {
    const { user } = await kycAppUser(svc);
    const bodies: [unknown, string?][] = [
      [{ providerId: 'sandbox', level: 'expert' }, 'level'],
      [{ providerId: 'sandbox' }, 'level'],
      [{ level: 'basic' }, 'providerId'],
      [{ providerId: 'Sandbox', level: 'basic' }, 'providerId'],
      [{ providerId: 'sandbox', level: ['basic'] }, 'level'],
      [{ providerId: 'sandbox', level: 'basic', userId: user.userId }],
      ['sandbox'],
    ];
    for (const [body, field] of bodies) {
      const res = await start(user, body);
      assert.deepEqual([res.status, res.body?.code], [400, 'VALIDATION_ERROR'], `${JSON.stringify(body)}: ${res.text}`);
      if (field) assert.ok(res.body.details?.fieldErrors?.[field], JSON.stringify(res.body.details));
    }
    const broken = await user.call('startKycSession', 'POST', PATH, {
      rawBody: '{"providerId": "sandbox",',
      headers: { 'content-type': 'application/json' },
    });
    assert.deepEqual([broken.status, broken.body?.code], [400, 'INVALID_JSON'], broken.text);
    assert.deepEqual(await rowsOf(user), []);
  });

  test('401 without a session (the publishable key alone)', async () => {
    const { creds, user } = await kycAppUser(svc);
    const res = await call(svc.url, 'startKycSession', 'POST', PATH, {
      headers: { 'x-service-api-key': creds.publishableKey },
      body: { providerId: 'sandbox', level: 'basic' },
    });
    assert.equal(res.status, 401, res.text);
    assert.deepEqual(await rowsOf(user), []);
  });
});
