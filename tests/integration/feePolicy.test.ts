// The fee-bump policy over HTTP with real operator sessions, every answer checked against the contract: the defaults,
// a full replacement read back exactly, the audit entry, field errors (the fee range, assets the app does not
// configure, merge destinations) with nothing stored, who may read and change it, and cross-operator isolation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { updateAppSettings } from '../../src/domain/apps/store';
import { signInOperator, type OperatorClient } from '../support/operators';
import { startTestService, type TestService } from '../support/service';

const USDC = 'USDC:GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5';
const EURC = 'EURC:GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2';
const DEST = 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2';

const DEFAULTS = {
  maxFeePerTxXlm: '10',
  dailyOpsCap: null,
  approvedAssets: [],
  gasMinimumBalanceXlm: '10',
  allowAccountMerge: false,
  accountMergeDestinations: [],
};

const CUSTOM = {
  maxFeePerTxXlm: '0.0123456',
  dailyOpsCap: 500,
  approvedAssets: ['native', USDC],
  gasMinimumBalanceXlm: '25.5',
  allowAccountMerge: true,
  accountMergeDestinations: [DEST],
};

describe('fee-bump policy (getFeePolicy, updateFeePolicy)', () => {
  let svc: TestService;
  let owner: OperatorClient;
  let admin: OperatorClient;
  let developer: OperatorClient;
  let outsider: OperatorClient;

  /** An app configuring USDC, with an admin and a developer besides its owner. */
  async function teamApp(): Promise<string> {
    const created = await owner.call('createApp', 'POST', '/api/v1/apps', {
      body: { name: 'Fee policy app', network: 'testnet' },
    });
    assert.equal(created.status, 201, created.text);
    const appId: string = created.body.content.appId;
    await updateAppSettings(svc.deps.db, appId, { assets: [USDC] });
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

  const get = (client: OperatorClient, appId: string) =>
    client.call('getFeePolicy', 'GET', `/api/v1/apps/${appId}/fee-policy`);
  const put = (client: OperatorClient, appId: string, body: unknown) =>
    client.call('updateFeePolicy', 'PUT', `/api/v1/apps/${appId}/fee-policy`, { body });

  before(async () => {
    svc = await startTestService({ LOCALNET: 'off' });
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

  test('a new app has the default policy', async () => {
    const appId = await teamApp();
    const res = await get(owner, appId);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'FEE_POLICY_FETCHED');
    assert.deepEqual(res.body.content, DEFAULTS);
  });

  test('replaces the whole policy and reads it back exactly; stored in stroops', async () => {
    const appId = await teamApp();
    const res = await put(owner, appId, CUSTOM);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'FEE_POLICY_UPDATED');
    assert.deepEqual(res.body.content, CUSTOM);
    assert.deepEqual((await get(owner, appId)).body.content, CUSTOM);
    const row = await svc.deps.db('fee_policies').where({ app_id: appId }).first();
    assert.equal(String(row.max_fee_stroops), '123456');
    assert.equal(String(row.gas_minimum_stroops), '255000000');

    // a replacement, not a merge; amounts come back in canonical form
    const next = { ...DEFAULTS, maxFeePerTxXlm: '0.0100000', approvedAssets: [USDC], accountMergeDestinations: [DEST] };
    const replaced = await put(owner, appId, next);
    assert.equal(replaced.status, 200, replaced.text);
    assert.deepEqual(
      replaced.body.content,
      { ...next, maxFeePerTxXlm: '0.01' },
      'destinations are kept while merges are refused',
    );
    assert.deepEqual((await get(owner, appId)).body.content, { ...next, maxFeePerTxXlm: '0.01' });
  });

  test('each change is in the audit log as fee_policy.updated, by the operator', async () => {
    const appId = await teamApp();
    await put(owner, appId, CUSTOM);
    await put(admin, appId, DEFAULTS);
    const res = await owner.call('listAuditLog', 'GET', `/api/v1/apps/${appId}/audit-log?action=fee_policy.updated`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.content.entries.map((e: any) => [e.action, e.actor]),
      [
        ['fee_policy.updated', { type: 'operator', id: admin.operatorId }],
        ['fee_policy.updated', { type: 'operator', id: owner.operatorId }],
      ],
      'newest first',
    );
  });

  test('400 VALIDATION_ERROR with the field at fault, and nothing is stored', async () => {
    const appId = await teamApp();
    await put(owner, appId, CUSTOM);
    const cases: [Record<string, unknown>, string][] = [
      [{ maxFeePerTxXlm: '0.0099999' }, 'maxFeePerTxXlm'],
      [{ maxFeePerTxXlm: '100.0000001' }, 'maxFeePerTxXlm'],
      [{ maxFeePerTxXlm: '0' }, 'maxFeePerTxXlm'],
      [{ maxFeePerTxXlm: '1e1' }, 'maxFeePerTxXlm'],
      [{ maxFeePerTxXlm: 10 }, 'maxFeePerTxXlm'],
      [{ approvedAssets: ['native', EURC] }, 'approvedAssets'],
      [{ approvedAssets: ['native', 'native'] }, 'approvedAssets'],
      [{ approvedAssets: ['XLM'] }, 'approvedAssets.0'],
      [{ dailyOpsCap: 0 }, 'dailyOpsCap'],
      [{ dailyOpsCap: 1_000_001 }, 'dailyOpsCap'],
      [{ gasMinimumBalanceXlm: '-1' }, 'gasMinimumBalanceXlm'],
      [
        { accountMergeDestinations: [`${DEST.slice(0, -1)}${DEST.endsWith('A') ? 'B' : 'A'}`] },
        'accountMergeDestinations',
      ],
      [{ allowAccountMerge: 'yes' }, 'allowAccountMerge'],
      [{ extra: true }, 'extra'],
    ];
    for (const [change, field] of cases) {
      const res = await put(owner, appId, { ...CUSTOM, ...change });
      assert.equal(res.status, 400, JSON.stringify(change));
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.ok(res.body.details.fieldErrors[field], `${JSON.stringify(change)}: ${JSON.stringify(res.body.details)}`);
    }
    const missing = await put(owner, appId, { ...CUSTOM, dailyOpsCap: undefined });
    assert.equal(missing.status, 400);
    assert.ok(missing.body.details.fieldErrors.dailyOpsCap, 'every field must be sent (null for no cap)');

    const outOfRange = await put(owner, appId, { ...CUSTOM, maxFeePerTxXlm: '101' });
    assert.deepEqual(outOfRange.body.details.fieldErrors, { maxFeePerTxXlm: ['must be between 0.01 and 100'] });
    const notConfigured = await put(owner, appId, { ...CUSTOM, approvedAssets: [EURC] });
    assert.deepEqual(notConfigured.body.details.fieldErrors, {
      approvedAssets: [`${EURC} is neither native nor one of the app's configured assets`],
    });

    assert.deepEqual((await get(owner, appId)).body.content, CUSTOM);
    const audited = await svc.deps.db('audit_log').where({ app_id: appId, action: 'fee_policy.updated' });
    assert.equal(audited.length, 1, 'refused changes are not audited');
  });

  test('the bounds themselves are accepted: 0.01 and 100 XLM, a cap of 1 and 1,000,000', async () => {
    const appId = await teamApp();
    for (const [maxFeePerTxXlm, dailyOpsCap] of [
      ['0.01', 1],
      ['100', 1_000_000],
    ] as const) {
      const res = await put(owner, appId, { ...DEFAULTS, maxFeePerTxXlm, dailyOpsCap });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.content.maxFeePerTxXlm, maxFeePerTxXlm);
      assert.equal(res.body.content.dailyOpsCap, dailyOpsCap);
    }
  });

  test("every member may read and change it, whatever their role (as the app's other settings)", async () => {
    const appId = await teamApp();
    for (const [client, cap] of [
      [owner, 1],
      [admin, 2],
      [developer, 3],
    ] as const) {
      const res = await put(client, appId, { ...DEFAULTS, dailyOpsCap: cap });
      assert.equal(res.status, 200, res.text);
      for (const reader of [owner, admin, developer])
        assert.equal((await get(reader, appId)).body.content.dailyOpsCap, cap);
    }
  });

  test("another operator's app: 404 APPLICATION_NOT_FOUND on read and replace, and nothing changes", async () => {
    const appId = await teamApp();
    await put(owner, appId, CUSTOM);
    for (const res of [await get(outsider, appId), await put(outsider, appId, DEFAULTS)]) {
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'APPLICATION_NOT_FOUND');
    }
    const missingApp = await get(owner, 'app_01JD3X5K7Q9T2M4N6P8R0S1V3W');
    assert.equal(missingApp.status, 404);
    assert.deepEqual((await get(owner, appId)).body.content, CUSTOM);
  });

  test('an archived app: 404 on read and replace; the policy is kept for a restore', async () => {
    const appId = await teamApp();
    await put(owner, appId, CUSTOM);
    await owner.call('archiveApp', 'POST', `/api/v1/apps/${appId}/archive`);
    for (const res of [await get(owner, appId), await put(owner, appId, DEFAULTS)]) {
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'APPLICATION_NOT_FOUND');
    }
    await owner.call('restoreApp', 'POST', `/api/v1/apps/${appId}/restore`);
    assert.deepEqual((await get(owner, appId)).body.content, CUSTOM);
  });
});
