// getRampSettings (GET /api/v1/apps/{appId}/ramps) with real operator sessions against the real service, every answer
// checked against the contract: the sandbox offered by default to a testnet app with the demo USDC (and nothing
// without it), what was saved, and who may read it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  OTHER_ISSUER_ASSET,
  appWith,
  developer,
  get,
  outsider,
  owner,
  put,
  refused,
  usdc,
  useRampService,
} from './ramps.setup';

useRampService();

describe('getRampSettings', () => {
  test('a testnet app never saved offers the sandbox with its demo USDC; without it, nothing', async () => {
    const withUsdc = await appWith([usdc, OTHER_ISSUER_ASSET]);
    const res = await get(developer, withUsdc);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'RAMP_SETTINGS_FETCHED');
    assert.deepEqual(res.body.content, {
      providers: [{ providerId: 'sandbox', enabled: true, assets: [usdc], credentialsSet: false }],
    });
    const without = await appWith([OTHER_ISSUER_ASSET]);
    assert.deepEqual((await get(owner, without)).body.content, { providers: [] });
  });

  test("another operator's app: 404 APPLICATION_NOT_FOUND", async () => {
    refused(await get(outsider, await appWith([usdc])), 404, 'APPLICATION_NOT_FOUND');
  });

  test('what was saved, credentials only as credentialsSet', async () => {
    const appId = await appWith([usdc]);
    const saved = await put(owner, appId, {
      providers: [
        { providerId: 'sep24', enabled: true, assets: [usdc], credentials: { anchorDomain: 'anchor.example.com' } },
      ],
    });
    assert.equal(saved.status, 200, saved.text);
    const res = await get(developer, appId);
    assert.deepEqual(res.body.content, {
      providers: [{ providerId: 'sep24', enabled: true, assets: [usdc], credentialsSet: true }],
    });
    assert.ok(!res.text.includes('anchor.example.com'), 'never answered');
  });
});
