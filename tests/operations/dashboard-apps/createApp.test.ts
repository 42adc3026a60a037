// createApp (POST /api/v1/apps): create an app. Shared set-up: setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call } from '../../support/http';
import { outsider, owner, svc, useService } from './setup';

describe('createApp', () => {
  useService();

  test('creates an app with the documented defaults; the caller is its owner', async () => {
    const res = await owner.call('createApp', 'POST', '/api/v1/apps', {
      body: { name: 'Coffee Rewards', network: 'mainnet' },
    });
    assert.equal(res.status, 201);
    assert.equal(res.body.code, 'APP_CREATED');
    const app = res.body.content;
    assert.match(app.appId, /^app_[0-9A-Za-z]+$/);
    assert.deepEqual(
      { ...app, appId: undefined, createdAt: undefined },
      {
        appId: undefined,
        name: 'Coffee Rewards',
        network: 'mainnet',
        status: 'active',
        fundingMode: 'immediate',
        startingBalanceXlm: '0',
        assets: [],
        accessTokenTtlMinutes: 15,
        refreshTokenTtlDays: 30,
        role: 'owner',
        createdAt: undefined,
        archivedAt: null,
      },
    );
    const members = await owner.call('listMembers', 'GET', `/api/v1/apps/${app.appId}/members`);
    assert.deepEqual(
      members.body.content.members.map((m: any) => ({
        operatorId: m.operatorId,
        role: m.role,
        joined: m.joinedAt === m.invitedAt,
      })),
      [{ operatorId: owner.operatorId, role: 'owner', joined: true }],
    );
    const keys = await owner.call('listApiKeys', 'GET', `/api/v1/apps/${app.appId}/api-keys`);
    assert.deepEqual(keys.body.content.keys, [], 'no API key exists until one is generated');
  });

  test('400 VALIDATION_ERROR for a missing, empty or too long name, an unknown network or an extra field', async () => {
    const cases: [unknown, string][] = [
      [{ network: 'testnet' }, 'name'],
      [{ name: '', network: 'testnet' }, 'name'],
      [{ name: 'x'.repeat(101), network: 'testnet' }, 'name'],
      [{ name: 'A', network: 'futurenet' }, 'network'],
      [{ name: 'A', network: 'testnet', ownerOperatorId: outsider.operatorId }, 'ownerOperatorId'],
    ];
    for (const [body, field] of cases) {
      const res = await owner.call('createApp', 'POST', '/api/v1/apps', { body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.ok(res.body.details.fieldErrors[field], `${JSON.stringify(body)}: ${JSON.stringify(res.body.details)}`);
    }
  });

  test('without a session: 401, and nothing is created', async () => {
    const res = await call(svc.url, 'createApp', 'POST', '/api/v1/apps', {
      body: { name: 'Anonymous', network: 'testnet' },
    });
    assert.equal(res.status, 401);
    assert.equal((await svc.deps.db('apps').where({ name: 'Anonymous' })).length, 0);
  });
});
