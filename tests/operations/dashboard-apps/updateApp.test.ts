// updateApp (PATCH /api/v1/apps/{appId}): change an app's settings. Shared set-up: setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BAD_CHECKSUM_ISSUER, ISSUER, admin, developer, outsider, owner, svc, teamApp, useService } from './setup';

describe('updateApp', () => {
  useService();

  test('changes only the given settings; amounts stay exact decimal strings; network never changes', async () => {
    const appId = await teamApp();
    const res = await owner.call('updateApp', 'PATCH', `/api/v1/apps/${appId}`, {
      body: { fundingMode: 'deferred', startingBalanceXlm: '2.50', assets: [`USDC:${ISSUER}`, `EURC:${ISSUER}`] },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.code, 'APP_UPDATED');
    assert.equal(res.body.content.fundingMode, 'deferred');
    assert.equal(res.body.content.startingBalanceXlm, '2.5');
    assert.deepEqual(res.body.content.assets, [`USDC:${ISSUER}`, `EURC:${ISSUER}`]);
    assert.equal(res.body.content.name, 'Team app');
    assert.equal(res.body.content.accessTokenTtlMinutes, 15);
    const precise = await owner.call('updateApp', 'PATCH', `/api/v1/apps/${appId}`, {
      body: {
        startingBalanceXlm: '999999999999.9999999',
        accessTokenTtlMinutes: 1440,
        refreshTokenTtlDays: 1,
        name: 'Renamed',
      },
    });
    assert.equal(precise.body.content.startingBalanceXlm, '999999999999.9999999');
    const read = await developer.call('getApp', 'GET', `/api/v1/apps/${appId}`);
    assert.deepEqual({ ...read.body.content, role: 'owner' }, precise.body.content);
    assert.equal(read.body.content.network, 'testnet');
    const stored = await svc.deps.db('apps').where({ id: appId }).first();
    assert.equal(stored.starting_balance_xlm, '999999999999.9999999', 'stored as an exact numeric');
  });

  test('admins and developers may change settings (not owner-only)', async () => {
    const appId = await teamApp();
    for (const [client, name] of [
      [admin, 'By admin'],
      [developer, 'By developer'],
    ] as const) {
      const res = await client.call('updateApp', 'PATCH', `/api/v1/apps/${appId}`, { body: { name } });
      assert.equal(res.status, 200);
      assert.equal(res.body.content.name, name);
    }
  });

  test('400 VALIDATION_ERROR with field errors, and nothing changes', async () => {
    const appId = await teamApp();
    const cases: [unknown, string][] = [
      [{}, 'body'],
      [{ network: 'mainnet' }, 'network'],
      [{ accessTokenTtlMinutes: 1441 }, 'accessTokenTtlMinutes'],
      [{ refreshTokenTtlDays: 0 }, 'refreshTokenTtlDays'],
      [{ startingBalanceXlm: '1.12345678' }, 'startingBalanceXlm'],
      [{ startingBalanceXlm: 2.5 }, 'startingBalanceXlm'],
      [{ startingBalanceXlm: '-1' }, 'startingBalanceXlm'],
      [{ fundingMode: 'later' }, 'fundingMode'],
      [{ assets: ['native'] }, 'assets.0'],
      [{ assets: [`USDC:${ISSUER}`, `USDC:${ISSUER}`] }, 'assets'],
      [{ assets: [`USDC:${ISSUER}`, `USDC:${BAD_CHECKSUM_ISSUER}`] }, 'assets.1'],
      [{ name: 'Kept?', assets: ['USDC'] }, 'assets.0'],
    ];
    for (const [body, field] of cases) {
      const res = await owner.call('updateApp', 'PATCH', `/api/v1/apps/${appId}`, { body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.ok(res.body.details.fieldErrors[field], `${JSON.stringify(body)}: ${JSON.stringify(res.body.details)}`);
    }
    const after = await owner.call('getApp', 'GET', `/api/v1/apps/${appId}`);
    assert.equal(after.body.content.name, 'Team app');
    assert.deepEqual(after.body.content.assets, []);
  });

  test("another operator's app: 404, and it is unchanged", async () => {
    const appId = await teamApp();
    const res = await outsider.call('updateApp', 'PATCH', `/api/v1/apps/${appId}`, { body: { name: 'Hijacked' } });
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'APPLICATION_NOT_FOUND');
    assert.equal((await owner.call('getApp', 'GET', `/api/v1/apps/${appId}`)).body.content.name, 'Team app');
  });
});
