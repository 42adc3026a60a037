// updateFeePolicy (PUT /api/v1/apps/{appId}/fee-policy): replace the app's fee-bump policy.
// Shared set-up: feePolicy.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CUSTOM,
  DEFAULTS,
  DEST,
  EURC,
  USDC,
  admin,
  get,
  owner,
  put,
  svc,
  teamApp,
  useService,
} from './feePolicy.setup';

describe('updateFeePolicy', () => {
  useService();

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
});
