// updateRampSettings (PUT /api/v1/apps/{appId}/ramps) with real operator sessions against the real service, every
// answer checked against the contract: the list replaced, credentials sealed at rest and write-only (kept when
// omitted, removed with their provider), the refusals (422 SDK_RAMPS_ASSET_NOT_ENABLED, SDK_RAMPS_PROVIDER_NOT_CONFIGURED,
// RAMP_SETTINGS_INVALID naming each field; 404 for another operator's app) changing nothing, and the audit entry
// without a credential.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { findApp } from '../../../src/domain/apps/store';
import { rampCredentials } from '../../../src/domain/ramps/settings';
import {
  API_KEY,
  OTHER_ISSUER_ASSET,
  appWith,
  developer,
  get,
  outsider,
  owner,
  put,
  refused,
  svc,
  usdc,
  useRampService,
} from './ramps.setup';

useRampService();

const storedRows = (appId: string) =>
  svc.deps.db('ramp_provider_settings').where({ app_id: appId }).orderBy('provider_id');

describe('updateRampSettings', () => {
  test('replaces the list; credentials sealed, write-only, kept when omitted, removed with their provider', async () => {
    const appId = await appWith([usdc]);
    const saved = await put(owner, appId, {
      providers: [
        { providerId: 'bridge', enabled: true, assets: [usdc], credentials: { apiKey: API_KEY } },
        { providerId: 'sandbox', enabled: false, assets: [] },
      ],
    });
    assert.equal(saved.status, 200, saved.text);
    assert.equal(saved.body.code, 'RAMP_SETTINGS_UPDATED');
    const expected = {
      providers: [
        { providerId: 'bridge', enabled: true, assets: [usdc], credentialsSet: true },
        { providerId: 'sandbox', enabled: false, assets: [], credentialsSet: false },
      ],
    };
    assert.deepEqual(saved.body.content, expected);
    assert.deepEqual((await get(developer, appId)).body.content, expected);
    assert.ok(!saved.text.includes(API_KEY), 'never answered');
    const [bridgeRow] = await storedRows(appId);
    assert.ok(bridgeRow.credentials_sealed, 'sealed at rest');
    assert.ok(!Buffer.from(bridgeRow.credentials_sealed).toString('latin1').includes(API_KEY), 'not in clear');
    const app = (await findApp(svc.deps.db, appId))!;
    assert.deepEqual(await rampCredentials(svc.deps, app, 'bridge'), { apiKey: API_KEY });

    // omitted: kept (and an enabled provider with stored credentials is accepted)
    const again = await put(developer, appId, { providers: [{ providerId: 'bridge', enabled: true, assets: [usdc] }] });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(await rampCredentials(svc.deps, app, 'bridge'), { apiKey: API_KEY });
    // left out: removed with its credentials
    const emptied = await put(owner, appId, { providers: [] });
    assert.deepEqual(emptied.body.content, { providers: [] });
    assert.deepEqual(await rampCredentials(svc.deps, app, 'bridge'), {});
    assert.deepEqual((await get(owner, appId)).body.content, { providers: [] }, 'no sandbox coming back once saved');

    const audits = await svc.deps.db('audit_log').where({ app_id: appId, action: 'ramp_settings.updated' });
    assert.equal(audits.length, 3);
    assert.ok(!JSON.stringify(audits).includes(API_KEY), 'the audit log has no credential');
  });

  test('the refusals name the field and change nothing', async () => {
    const appId = await appWith([usdc]);
    const before = await storedRows(appId);
    refused(
      await put(owner, appId, { providers: [{ providerId: 'bridge', enabled: true, assets: [usdc] }] }),
      422,
      'SDK_RAMPS_PROVIDER_NOT_CONFIGURED',
    );
    refused(
      await put(owner, appId, {
        providers: [{ providerId: 'sep24', enabled: true, assets: [usdc], credentials: { apiKey: API_KEY } }],
      }),
      422,
      'RAMP_SETTINGS_INVALID',
    );
    refused(
      await put(owner, appId, {
        providers: [
          { providerId: 'etherfuse', enabled: true, assets: [OTHER_ISSUER_ASSET], credentials: { apiKey: API_KEY } },
        ],
      }),
      422,
      'SDK_RAMPS_ASSET_NOT_ENABLED',
    );
    const twice = refused(
      await put(owner, appId, {
        providers: [
          { providerId: 'sandbox', enabled: true, assets: [usdc] },
          { providerId: 'sandbox', enabled: false, assets: [] },
        ],
      }),
      422,
      'RAMP_SETTINGS_INVALID',
    );
    assert.deepEqual(twice.fieldErrors, { 'providers.1.providerId': ['appears more than once'] });
    refused(
      await put(owner, appId, { providers: [{ providerId: 'acme', enabled: true, assets: [] }] }),
      400,
      'VALIDATION_ERROR',
    );
    assert.deepEqual(await storedRows(appId), before);
  });

  test('credential names of Object.prototype, NUL in a value, an oversized value: 4xx, nothing stored', async () => {
    const appId = await appWith([usdc]);
    for (const name of ['constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      const res = await put(owner, appId, {
        providers: [
          { providerId: 'bridge', enabled: true, assets: [usdc], credentials: { apiKey: API_KEY, [name]: 'x' } },
        ],
      });
      refused(res, 422, 'RAMP_SETTINGS_INVALID');
    }
    for (const value of ['key\u0000with-nul', 'x'.repeat(4001)]) {
      const res = await put(owner, appId, {
        providers: [{ providerId: 'bridge', enabled: true, assets: [usdc], credentials: { apiKey: value } }],
      });
      assert.ok(res.status >= 400 && res.status < 500, `${res.status}: ${res.text.slice(0, 200)}`);
    }
    assert.deepEqual(await storedRows(appId), []);
  });

  test('the sandbox is refused on a mainnet app', async () => {
    const created = await owner.call('createApp', 'POST', '/api/v1/apps', {
      body: { name: 'Live', network: 'mainnet' },
    });
    assert.equal(created.status, 201, created.text);
    const details = refused(
      await put(owner, created.body.content.appId, {
        providers: [{ providerId: 'sandbox', enabled: true, assets: [] }],
      }),
      422,
      'RAMP_SETTINGS_INVALID',
    );
    assert.match(details.fieldErrors['providers.0.providerId'][0], /not offered to mainnet apps/);
  });

  test("another operator's app: 404 APPLICATION_NOT_FOUND", async () => {
    refused(await put(outsider, await appWith([usdc]), { providers: [] }), 404, 'APPLICATION_NOT_FOUND');
  });
});
