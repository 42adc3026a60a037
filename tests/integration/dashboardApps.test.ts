// Dashboard apps over HTTP with real operator sessions, every answer checked against the contract: create, list, read,
// change, archive and restore; object-level authorization (another operator's app is a 404 exactly like a missing
// one and is never listed), owner-only archive and restore (403 for admins and developers), archived-app behaviour
// (hidden, 404 everywhere but getApp and restoreApp, its keys refused by the gate).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createApiKey } from '../../src/domain/apiKeys/apiKeys';
import { call } from '../support/http';
import { signInOperator, type OperatorClient } from '../support/operators';
import { startTestService, type TestService } from '../support/service';

const ISSUER = 'GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5';
const BAD_CHECKSUM_ISSUER = 'GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA6';
const VALID_G = 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2';

describe('Dashboard apps', () => {
  let svc: TestService;
  let owner: OperatorClient;
  let admin: OperatorClient;
  let developer: OperatorClient;
  let outsider: OperatorClient;

  /** A new app of `owner` with `admin` and `developer` on its team. */
  async function teamApp(name = 'Team app'): Promise<string> {
    const created = await owner.call('createApp', 'POST', '/api/v1/apps', { body: { name, network: 'testnet' } });
    assert.equal(created.status, 201, created.text);
    const appId: string = created.body.content.appId;
    for (const [member, role] of [
      [admin, 'admin'],
      [developer, 'developer'],
    ] as const) {
      const added = await owner.call('addMember', 'POST', `/api/v1/apps/${appId}/members`, {
        body: { email: member.email, role },
      });
      assert.equal(added.status, 201, added.text);
    }
    return appId;
  }

  before(async () => {
    svc = await startTestService();
    [owner, admin, developer, outsider] = await Promise.all([
      signInOperator(svc),
      signInOperator(svc),
      signInOperator(svc),
      signInOperator(svc),
    ]);
  });
  after(async () => {
    await svc?.stop();
  });

  describe('createApp', () => {
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

  describe('listApps', () => {
    test("lists only the caller's apps, newest first, with the caller's role in each", async () => {
      const first = await teamApp('List first');
      const second = await teamApp('List second');
      const theirs = await outsider.call('createApp', 'POST', '/api/v1/apps', {
        body: { name: 'Outsider app', network: 'testnet' },
      });
      const mine = await owner.call('listApps', 'GET', '/api/v1/apps');
      assert.equal(mine.status, 200);
      assert.equal(mine.body.code, 'APPS_LISTED');
      const ids: string[] = mine.body.content.apps.map((a: any) => a.appId);
      assert.ok(ids.indexOf(second) < ids.indexOf(first) && ids.indexOf(second) >= 0, 'newest first');
      assert.ok(!ids.includes(theirs.body.content.appId), "another operator's app is never listed");
      const asDeveloper = await developer.call('listApps', 'GET', '/api/v1/apps');
      assert.deepEqual(
        asDeveloper.body.content.apps.filter((a: any) => [first, second].includes(a.appId)).map((a: any) => a.role),
        ['developer', 'developer'],
      );
      const outsiders = await outsider.call('listApps', 'GET', '/api/v1/apps');
      assert.deepEqual(
        outsiders.body.content.apps.map((a: any) => a.appId),
        [theirs.body.content.appId],
      );
    });

    test('400 VALIDATION_ERROR when includeArchived is not a boolean', async () => {
      const res = await owner.call('listApps', 'GET', '/api/v1/apps?includeArchived=maybe');
      assert.equal(res.status, 400);
      assert.ok(res.body.details.fieldErrors['query.includeArchived']);
    });
  });

  describe('getApp', () => {
    test('every member reads the app with their own role', async () => {
      const appId = await teamApp();
      for (const [client, role] of [
        [owner, 'owner'],
        [admin, 'admin'],
        [developer, 'developer'],
      ] as const) {
        const res = await client.call('getApp', 'GET', `/api/v1/apps/${appId}`);
        assert.equal(res.status, 200);
        assert.equal(res.body.code, 'APP_FETCHED');
        assert.equal(res.body.content.role, role);
      }
    });

    test("another operator's app answers 404 APPLICATION_NOT_FOUND exactly like a missing one", async () => {
      const appId = await teamApp();
      const theirs = await outsider.call('getApp', 'GET', `/api/v1/apps/${appId}`);
      const missing = await outsider.call('getApp', 'GET', '/api/v1/apps/app_doesNotExist0000000000');
      assert.equal(theirs.status, 404);
      assert.equal(theirs.body.code, 'APPLICATION_NOT_FOUND');
      assert.deepEqual({ ...theirs.body, requestId: undefined }, { ...missing.body, requestId: undefined });
    });

    test('400 VALIDATION_ERROR for a malformed app id', async () => {
      const res = await owner.call('getApp', 'GET', '/api/v1/apps/not-an-app-id');
      assert.equal(res.status, 400);
      assert.ok(res.body.details.fieldErrors['path.appId']);
    });
  });

  describe('updateApp', () => {
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

  describe('archiveApp and restoreApp', () => {
    test('archive (owner): hidden from listApps unless includeArchived, readable by getApp, 404 elsewhere, keys refused; restore reverses it', async () => {
      const appId = await teamApp('Archived app');
      const key = await createApiKey(svc.deps.db, { appId, type: 'secret', network: 'testnet' });
      const fund = () =>
        call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', {
          headers: { 'x-service-api-key': key.key },
          body: { publicKey: VALID_G },
        });
      assert.notEqual((await fund()).body.code, 'APPLICATION_NOT_FOUND');

      const archived = await owner.call('archiveApp', 'POST', `/api/v1/apps/${appId}/archive`);
      assert.equal(archived.status, 200);
      assert.equal(archived.body.code, 'APP_ARCHIVED');
      assert.equal(archived.body.content.status, 'archived');
      assert.ok(archived.body.content.archivedAt);

      const again = await owner.call('archiveApp', 'POST', `/api/v1/apps/${appId}/archive`);
      assert.equal(again.status, 200, 'archiving an archived app answers the app');
      assert.equal(again.body.content.archivedAt, archived.body.content.archivedAt, 'the first archive time is kept');

      const listed = await owner.call('listApps', 'GET', '/api/v1/apps');
      assert.ok(!listed.body.content.apps.some((a: any) => a.appId === appId));
      const withArchived = await owner.call('listApps', 'GET', '/api/v1/apps?includeArchived=true');
      assert.equal(withArchived.body.content.apps.find((a: any) => a.appId === appId)?.status, 'archived');
      const read = await developer.call('getApp', 'GET', `/api/v1/apps/${appId}`);
      assert.equal(read.status, 200);
      assert.equal(read.body.content.status, 'archived');

      const hidden = [
        await owner.call('updateApp', 'PATCH', `/api/v1/apps/${appId}`, { body: { name: 'No' } }),
        await owner.call('listMembers', 'GET', `/api/v1/apps/${appId}/members`),
        await owner.call('addMember', 'POST', `/api/v1/apps/${appId}/members`, {
          body: { email: outsider.email, role: 'developer' },
        }),
        await owner.call('getAppDomains', 'GET', `/api/v1/apps/${appId}/domains`),
        await owner.call('updateAppDomains', 'PUT', `/api/v1/apps/${appId}/domains`, {
          body: { origins: [], redirectUris: [] },
        }),
      ];
      assert.deepEqual(
        hidden.map((r) => `${r.status} ${r.body.code}`),
        Array(hidden.length).fill('404 APPLICATION_NOT_FOUND'),
      );
      const refused = await fund();
      assert.equal(refused.status, 404);
      assert.equal(refused.body.code, 'APPLICATION_NOT_FOUND');

      const restored = await owner.call('restoreApp', 'POST', `/api/v1/apps/${appId}/restore`);
      assert.equal(restored.status, 200);
      assert.equal(restored.body.code, 'APP_RESTORED');
      assert.equal(restored.body.content.status, 'active');
      assert.equal(restored.body.content.archivedAt, null);
      assert.ok(
        (await owner.call('listApps', 'GET', '/api/v1/apps')).body.content.apps.some((a: any) => a.appId === appId),
      );
      assert.notEqual((await fund()).body.code, 'APPLICATION_NOT_FOUND', 'the key works again');

      const restoredAgain = await owner.call('restoreApp', 'POST', `/api/v1/apps/${appId}/restore`);
      assert.equal(restoredAgain.status, 200, 'restoring an active app answers the app');
      assert.equal(restoredAgain.body.content.status, 'active');
    });

    test('admins and developers get 403 FORBIDDEN on archive and restore; the app stays as it was', async () => {
      const appId = await teamApp();
      for (const client of [admin, developer]) {
        const res = await client.call('archiveApp', 'POST', `/api/v1/apps/${appId}/archive`);
        assert.equal(res.status, 403);
        assert.equal(res.body.code, 'FORBIDDEN');
      }
      assert.equal((await owner.call('getApp', 'GET', `/api/v1/apps/${appId}`)).body.content.status, 'active');
      await owner.call('archiveApp', 'POST', `/api/v1/apps/${appId}/archive`);
      for (const client of [admin, developer]) {
        const res = await client.call('restoreApp', 'POST', `/api/v1/apps/${appId}/restore`);
        assert.equal(res.status, 403);
        assert.equal(res.body.code, 'FORBIDDEN');
      }
      assert.equal((await owner.call('getApp', 'GET', `/api/v1/apps/${appId}`)).body.content.status, 'archived');
    });

    test('another operator gets 404 on archive, restore and reading an archived app', async () => {
      const appId = await teamApp();
      const archive = await outsider.call('archiveApp', 'POST', `/api/v1/apps/${appId}/archive`);
      assert.equal(archive.status, 404);
      assert.equal(archive.body.code, 'APPLICATION_NOT_FOUND');
      await owner.call('archiveApp', 'POST', `/api/v1/apps/${appId}/archive`);
      for (const res of [
        await outsider.call('restoreApp', 'POST', `/api/v1/apps/${appId}/restore`),
        await outsider.call('getApp', 'GET', `/api/v1/apps/${appId}`),
      ]) {
        assert.equal(res.status, 404);
        assert.equal(res.body.code, 'APPLICATION_NOT_FOUND');
      }
      const listed = await outsider.call('listApps', 'GET', '/api/v1/apps?includeArchived=true');
      assert.ok(!listed.body.content.apps.some((a: any) => a.appId === appId));
    });
  });
});
