// listRampProviders (GET /v1/ramps/providers) with real end-user sessions against the real service, every answer checked
// against the contract: the sandbox with its routes for an app with the demo USDC, nothing for a provider switched off
// or an app without an asset the sandbox settles, and no answer without a session.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SYSTEM_ACTOR } from '../../../src/domain/audit/auditLog';
import { updateAppSettings } from '../../../src/domain/apps/store';
import { updateRampSettings } from '../../../src/domain/ramps/settings';
import { seedCredentials } from '../../support/credentials';
import { call } from '../../support/http';
import { signInUser } from '../../support/users';
import { app, newUser, svc, usdc, useRampsService } from './ramps.setup';

useRampsService();

describe('listRampProviders', () => {
  test('the sandbox, on and off in USD for the demo USDC; none once switched off', async () => {
    const user = await newUser();
    const res = await user.call('listRampProviders', 'GET', '/v1/ramps/providers');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'SDK_RAMPS_PROVIDERS_LISTED');
    assert.deepEqual(res.body.content.providers, [
      {
        providerId: 'sandbox',
        name: 'Sandbox (development)',
        directions: ['on', 'off'],
        fiatCurrencies: ['USD'],
        assets: [usdc],
      },
    ]);
    await updateRampSettings(
      svc.deps,
      app,
      { providers: [{ providerId: 'sandbox', enabled: false, assets: [usdc] }] },
      { actor: SYSTEM_ACTOR, at: new Date() },
    );
    try {
      const off = await user.call('listRampProviders', 'GET', '/v1/ramps/providers');
      assert.deepEqual(off.body.content.providers, []);
    } finally {
      await updateRampSettings(
        svc.deps,
        app,
        { providers: [{ providerId: 'sandbox', enabled: true, assets: [usdc] }] },
        { actor: SYSTEM_ACTOR, at: new Date() },
      );
    }
  });

  test('an app without an asset the sandbox settles lists none', async () => {
    const other = await seedCredentials(svc.deps.db, { name: 'No assets' });
    await updateAppSettings(svc.deps.db, other.app.id, { assets: [] });
    const user = await signInUser(svc, other);
    const res = await user.call('listRampProviders', 'GET', '/v1/ramps/providers');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.content.providers, []);
  });

  test('without a session: 401', async () => {
    const user = await newUser();
    const res = await call(svc.url, 'listRampProviders', 'GET', '/v1/ramps/providers', {
      headers: { 'x-service-api-key': user.publishableKey },
    });
    assert.equal(res.status, 401, res.text);
  });
});
