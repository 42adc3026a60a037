// updateKycSettings (PUT /api/v1/apps/{appId}/kyc): replace an app's KYC providers, with real operator sessions against
// the real service, every answer checked against the contract. The list replaced (disabled and emptied lists kept as
// saved), credentials sealed at rest and write-only (kept when omitted, removed with their provider), the refusals
// (404 unknown provider, 422 KYC_SETTINGS_INVALID naming each field, 400 malformed body) changing nothing, the audit
// entry without a credential, and who may change them. The sandbox takes no credentials; sealing is tested with it
// anyway, as the operation accepts and stores the credentials given for any listed provider.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { findApp } from '../../../src/domain/apps/store';
import { providerCredentials } from '../../../src/domain/kyc/settings';
import { call } from '../../support/http';
import { signInOperator } from '../../support/operators';
import { startTestService } from '../../support/service';
import { appOn, developer, get, outsider, owner, pathOf, put, svc, teamApp, useKycService } from './kyc.setup';

const SECRET = 'kyc-settings-test-secret-8fK2mQ9xV4tR7wY1zB3n';
const API_KEY = 'sbx_4mQ9xV4tR7wY1zB3nC6dE0gH';
const ALL_LEVELS = ['basic', 'intermediate', 'enhanced'];

const sandbox = (fields: Record<string, unknown> = {}) => ({
  providerId: 'sandbox',
  enabled: true,
  levels: ['basic'],
  ...fields,
});

const storedRows = (appId: string, db = svc.deps.db) =>
  db('kyc_provider_settings').where({ app_id: appId }).orderBy('provider_id');
const audits = (appId: string, db = svc.deps.db) =>
  db('audit_log').where({ app_id: appId, action: 'kyc_settings.updated' }).orderBy('created_at');

/** Asserts a refusal with its status and code; answers the error's details. */
function refused(res: { status: number; body: any; text: string }, status: number, code: string): any {
  assert.deepEqual([res.status, res.body?.code], [status, code], res.text);
  assert.equal(res.body.success, false);
  return res.body.details;
}

describe('updateKycSettings', () => {
  useKycService();

  test('replaces the list; any member may change it; the answer is what getKycSettings reads', async () => {
    const appId = await teamApp();
    const first = await put(owner, appId, { providers: [sandbox({ levels: ['basic', 'enhanced'] })] });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.code, 'KYC_SETTINGS_UPDATED');
    assert.deepEqual(first.body.content, {
      providers: [{ providerId: 'sandbox', enabled: true, levels: ['basic', 'enhanced'], credentialsSet: false }],
    });
    const second = await put(developer, appId, { providers: [sandbox({ levels: ['intermediate'] })] });
    assert.equal(second.status, 200, second.text);
    const expected = {
      providers: [{ providerId: 'sandbox', enabled: true, levels: ['intermediate'], credentialsSet: false }],
    };
    assert.deepEqual(second.body.content, expected);
    assert.deepEqual((await get(owner, appId)).body.content, expected);
    const rows = await storedRows(appId);
    assert.deepEqual(
      rows.map((r) => [r.provider_id, r.enabled, r.levels, r.credentials_sealed]),
      [['sandbox', true, ['intermediate'], null]],
    );
  });

  test('a disabled sandbox stays disabled (with or without levels); the default does not override it', async () => {
    const appId = await teamApp();
    for (const levels of [['basic', 'enhanced'], []]) {
      const res = await put(owner, appId, { providers: [sandbox({ enabled: false, levels })] });
      assert.equal(res.status, 200, res.text);
      const expected = { providers: [{ providerId: 'sandbox', enabled: false, levels, credentialsSet: false }] };
      assert.deepEqual(res.body.content, expected);
      assert.deepEqual((await get(owner, appId)).body.content, expected);
    }
  });

  test('an empty list saved stays empty, also after the sandbox was saved; re-adding it starts without credentials', async () => {
    const never = await teamApp();
    const emptied = await put(owner, never, { providers: [] });
    assert.equal(emptied.status, 200, emptied.text);
    assert.deepEqual(emptied.body.content, { providers: [] });
    assert.deepEqual((await get(owner, never)).body.content, { providers: [] }, 'no sandbox coming back');

    const appId = await teamApp();
    await put(owner, appId, { providers: [sandbox({ levels: ALL_LEVELS, credentials: { apiKey: API_KEY } })] });
    assert.deepEqual((await put(owner, appId, { providers: [] })).body.content, { providers: [] });
    assert.deepEqual((await get(owner, appId)).body.content, { providers: [] });
    assert.deepEqual(await storedRows(appId), [], 'the row and its credentials are gone');
    const again = await put(owner, appId, { providers: [sandbox()] });
    assert.deepEqual(again.body.content.providers[0].credentialsSet, false);
  });

  test('credentials: sealed at rest, never answered, kept when omitted, replaced when given, removed with their provider', async () => {
    const appId = await teamApp();
    const app = (await findApp(svc.deps.db, appId))!;
    const credentials = { apiKey: API_KEY, apiSecret: SECRET };
    const saved = await put(owner, appId, { providers: [sandbox({ credentials })] });
    assert.equal(saved.status, 200, saved.text);
    assert.deepEqual(saved.body.content, {
      providers: [{ providerId: 'sandbox', enabled: true, levels: ['basic'], credentialsSet: true }],
    });
    const read = await get(developer, appId);
    assert.deepEqual(read.body.content.providers[0].credentialsSet, true);
    for (const answer of [saved.text, read.text])
      assert.ok(!answer.includes(SECRET) && !answer.includes(API_KEY), 'no credential in an answer');

    const [row] = await storedRows(appId);
    assert.ok(Buffer.isBuffer(row.credentials_sealed) && Buffer.isBuffer(row.credentials_data_key));
    assert.equal(typeof row.kms_key_id, 'string');
    for (const plain of [SECRET, API_KEY]) {
      assert.equal(row.credentials_sealed.includes(Buffer.from(plain)), false, 'sealed, not in clear');
      assert.equal(row.credentials_data_key.includes(Buffer.from(plain)), false);
    }
    assert.deepEqual(await providerCredentials(svc.deps, app, 'sandbox'), credentials, 'they open again');

    // Omitted: kept as they are (the same sealed bytes), while the rest of the entry changes.
    const kept = await put(owner, appId, { providers: [sandbox({ enabled: false, levels: ['enhanced'] })] });
    assert.deepEqual(kept.body.content, {
      providers: [{ providerId: 'sandbox', enabled: false, levels: ['enhanced'], credentialsSet: true }],
    });
    const [keptRow] = await storedRows(appId);
    assert.deepEqual(
      [keptRow.credentials_sealed, keptRow.credentials_data_key, keptRow.kms_key_id],
      [row.credentials_sealed, row.credentials_data_key, row.kms_key_id],
    );
    assert.deepEqual(await providerCredentials(svc.deps, app, 'sandbox'), credentials);

    // Given again: replaced.
    const replaced = await put(owner, appId, { providers: [sandbox({ credentials: { apiKey: 'sbx_replaced' } })] });
    assert.equal(replaced.body.content.providers[0].credentialsSet, true);
    assert.deepEqual(await providerCredentials(svc.deps, app, 'sandbox'), { apiKey: 'sbx_replaced' });

    // Left out: removed with the provider.
    await put(owner, appId, { providers: [] });
    assert.deepEqual(await storedRows(appId), []);
    assert.deepEqual(await providerCredentials(svc.deps, app, 'sandbox'), {});
  });

  test('concurrent updates of one app run one after the other: every one answers 200, omitted credentials kept', async () => {
    for (let round = 0; round < 3; round++) {
      const appId = await teamApp();
      const app = (await findApp(svc.deps.db, appId))!;
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          put(owner, appId, { providers: [sandbox(i % 2 ? { credentials: { apiKey: `sbx_race_${i}` } } : {})] }),
        ),
      );
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 200, 200, 200, 200],
        answers.map((a) => a.text).join('\n'),
      );
      // Whatever the order, a save without credentials after one with them keeps them: the last state has some.
      assert.deepEqual((await get(owner, appId)).body.content.providers, [
        { providerId: 'sandbox', enabled: true, levels: ['basic'], credentialsSet: true },
      ]);
      assert.match((await providerCredentials(svc.deps, app, 'sandbox')).apiKey ?? '', /^sbx_race_[135]$/);
      assert.equal((await audits(appId)).length, 6);
    }
  });

  test('each change is audited as kyc_settings.updated by the operator, naming the providers, never a credential', async () => {
    const appId = await teamApp();
    await put(owner, appId, { providers: [sandbox({ credentials: { apiKey: API_KEY, apiSecret: SECRET } })] });
    await put(developer, appId, { providers: [sandbox({ enabled: false })] });
    await put(owner, appId, { providers: [] });
    const rows = await audits(appId);
    assert.deepEqual(
      rows.map((r) => [r.actor_type, r.actor_id, r.details]),
      [
        ['operator', owner.operatorId, { providers: 'sandbox', credentialsChanged: 'sandbox' }],
        ['operator', developer.operatorId, { providers: 'sandbox (off)', credentialsChanged: 'none' }],
        ['operator', owner.operatorId, { providers: 'none', credentialsChanged: 'none' }],
      ],
    );
    for (const r of rows) {
      const text = JSON.stringify(r);
      assert.ok(!text.includes(SECRET) && !text.includes(API_KEY), 'no credential in the audit log');
    }
    const listed = await owner.call(
      'listAuditLog',
      'GET',
      `/api/v1/apps/${appId}/audit-log?action=kyc_settings.updated`,
    );
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(
      listed.body.content.entries.map((e: any) => [e.action, e.actor]),
      [
        ['kyc_settings.updated', { type: 'operator', id: owner.operatorId }],
        ['kyc_settings.updated', { type: 'operator', id: developer.operatorId }],
        ['kyc_settings.updated', { type: 'operator', id: owner.operatorId }],
      ],
      'newest first',
    );
    assert.ok(!listed.text.includes(SECRET) && !listed.text.includes(API_KEY));
  });

  test('404 SDK_KYC_PROVIDER_NOT_FOUND for a provider the service does not support; nothing changes', async () => {
    const appId = await teamApp();
    await put(owner, appId, { providers: [sandbox()] });
    for (const providers of [
      [{ providerId: 'acme', enabled: true, levels: ['basic'], credentials: { apiKey: API_KEY } }],
      [sandbox({ levels: ALL_LEVELS }), { providerId: 'sumsub', enabled: false, levels: [] }],
    ]) {
      const res = await put(owner, appId, { providers });
      refused(res, 404, 'SDK_KYC_PROVIDER_NOT_FOUND');
      assert.match(res.body.message, /acme|sumsub/);
    }
    assert.deepEqual((await get(owner, appId)).body.content.providers, [
      { providerId: 'sandbox', enabled: true, levels: ['basic'], credentialsSet: false },
    ]);
    assert.equal((await audits(appId)).length, 1, 'only the first update is audited');
  });

  test('422 KYC_SETTINGS_INVALID naming each field: a provider twice, enabled without a level; nothing changes', async () => {
    const appId = await teamApp();
    await put(owner, appId, { providers: [sandbox({ credentials: { apiKey: API_KEY } })] });
    const [before] = await storedRows(appId);

    const twice = refused(
      await put(owner, appId, { providers: [sandbox(), sandbox({ enabled: false, levels: [] })] }),
      422,
      'KYC_SETTINGS_INVALID',
    );
    assert.deepEqual(twice, { fieldErrors: { 'providers.1.providerId': ['appears more than once'] } });

    const noLevel = refused(
      await put(owner, appId, { providers: [sandbox({ levels: [], credentials: { apiKey: 'sbx_other' } })] }),
      422,
      'KYC_SETTINGS_INVALID',
    );
    assert.deepEqual(noLevel, {
      fieldErrors: { 'providers.0.levels': ['name at least one level to enable the provider'] },
    });

    const both = refused(
      await put(owner, appId, { providers: [sandbox({ levels: [] }), sandbox({ levels: [] })] }),
      422,
      'KYC_SETTINGS_INVALID',
    );
    assert.deepEqual(both, {
      fieldErrors: {
        'providers.0.levels': ['name at least one level to enable the provider'],
        'providers.1.providerId': ['appears more than once'],
        'providers.1.levels': ['name at least one level to enable the provider'],
      },
    });

    assert.deepEqual(await storedRows(appId), [before], 'the stored entry and its credentials are untouched');
    assert.equal((await audits(appId)).length, 1);
  });

  test('422 KYC_SETTINGS_INVALID for the sandbox on a mainnet app, enabled or not; nothing is stored', async () => {
    const appId = await appOn(owner, 'mainnet');
    for (const entry of [sandbox({ levels: ALL_LEVELS }), sandbox({ enabled: false, levels: [] })]) {
      const details = refused(await put(owner, appId, { providers: [entry] }), 422, 'KYC_SETTINGS_INVALID');
      assert.deepEqual(details, {
        fieldErrors: { 'providers.0.providerId': ['is not offered to mainnet apps on this service'] },
      });
    }
    const empty = await put(owner, appId, { providers: [] });
    assert.deepEqual([empty.status, empty.body.content], [200, { providers: [] }], 'an empty list is fine');
    assert.deepEqual(await storedRows(appId), []);
  });

  test('422 KYC_SETTINGS_INVALID for the sandbox on a testnet app of a service with KYC_SANDBOX off', async () => {
    const off = await startTestService({ KYC_SANDBOX: 'off' });
    try {
      const operator = await signInOperator(off);
      const appId = await appOn(operator, 'testnet');
      const res = await operator.call('updateKycSettings', 'PUT', pathOf(appId), { body: { providers: [sandbox()] } });
      assert.deepEqual(refused(res, 422, 'KYC_SETTINGS_INVALID'), {
        fieldErrors: { 'providers.0.providerId': ['is not offered to testnet apps on this service'] },
      });
      assert.deepEqual(await storedRows(appId, off.deps.db), []);
      assert.deepEqual(await audits(appId, off.deps.db), []);
    } finally {
      await off.stop();
    }
  });

  test('400 VALIDATION_ERROR for a malformed body (INVALID_JSON for broken JSON); nothing is stored', async () => {
    const appId = await teamApp();
    const bodies: [unknown, string?][] = [
      [{ providers: [sandbox({ levels: ['expert'] })] }, 'providers.0.levels.0'],
      [{ providers: [sandbox({ levels: 'basic' })] }, 'providers.0.levels'],
      [{ providers: [sandbox({ levels: ['basic', 'basic'] })] }],
      [{ providers: [{ providerId: 'sandbox', enabled: true }] }],
      [{ providers: [sandbox({ providerId: 'Sandbox' })] }],
      [{ providers: [sandbox({ enabled: 'yes' })] }],
      [{ providers: [sandbox({ credentialsSet: true })] }],
      [{ providers: [sandbox({ credentials: { apiKey: 42 } })] }],
      [{ providers: [sandbox({ credentials: { apiKey: '' } })] }],
      [{ providers: [sandbox({ credentials: 'secret' })] }],
      [{ providers: [sandbox()], extra: true }],
      [{}],
    ];
    for (const [body, field] of bodies) {
      const details = refused(await put(owner, appId, body), 400, 'VALIDATION_ERROR');
      assert.ok(details?.fieldErrors && Object.keys(details.fieldErrors).length > 0, JSON.stringify(body));
      if (field)
        assert.ok(
          Object.keys(details.fieldErrors).some((k) => k.startsWith(field)),
          JSON.stringify(details),
        );
    }
    const broken = await owner.call('updateKycSettings', 'PUT', pathOf(appId), {
      rawBody: '{"providers": [',
      headers: { 'content-type': 'application/json' },
    });
    refused(broken, 400, 'INVALID_JSON');
    assert.deepEqual(await storedRows(appId), []);
    assert.deepEqual(await audits(appId), []);
    assert.deepEqual((await get(owner, appId)).body.content.providers[0].providerId, 'sandbox', 'still the default');
  });

  test("another operator's app and an archived app answer 404 APPLICATION_NOT_FOUND; 401 without a session", async () => {
    const appId = await teamApp();
    refused(await put(outsider, appId, { providers: [] }), 404, 'APPLICATION_NOT_FOUND');
    refused(await put(owner, 'app_0000000000000000000000', { providers: [] }), 404, 'APPLICATION_NOT_FOUND');
    const anonymous = await call(svc.url, 'updateKycSettings', 'PUT', pathOf(appId), { body: { providers: [] } });
    assert.equal(anonymous.status, 401, anonymous.text);
    assert.equal((await owner.call('archiveApp', 'POST', `/api/v1/apps/${appId}/archive`)).status, 200);
    refused(await put(owner, appId, { providers: [] }), 404, 'APPLICATION_NOT_FOUND');
    assert.deepEqual(await storedRows(appId), []);
    assert.deepEqual(await audits(appId), [], 'nothing saved: the default would still apply');
  });
});
