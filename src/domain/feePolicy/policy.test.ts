// The stored policy on real PostgreSQL (defaults without a row, upsert, exact stroops, the audit entry in the same
// transaction) and the pure parts: the contract view and the checks the contract's forms cannot make.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useMigratedDatabase } from '../../../tests/support/database';
import { createApp, createOperator } from '../apps/store';
import {
  DEFAULT_FEE_POLICY,
  feePolicyFieldErrors,
  feePolicyFromView,
  feePolicyView,
  loadFeePolicy,
  saveFeePolicy,
  type FeePolicy,
  type FeePolicyView,
} from './policy';

const USDC = 'USDC:GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5';
const EURC = 'EURC:GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2';
const DEST = 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2';
const AT = new Date('2030-06-15T12:00:00.000Z');

const db = useMigratedDatabase();

async function newApp(): Promise<{ appId: string; operatorId: string }> {
  const operator = await createOperator(db, { email: `fee-policy-${Math.random().toString(36).slice(2)}@example.com` });
  const app = await createApp(db, { name: 'Fee policy app', network: 'testnet', ownerOperatorId: operator.id });
  return { appId: app.id, operatorId: operator.id };
}

const custom: FeePolicy = {
  maxFeeStroops: 1_234_567n, // 0.1234567 XLM: every stroop kept
  dailyOpsCap: 500,
  approvedAssets: ['native', USDC],
  gasMinimumStroops: 250_000_001n,
  allowAccountMerge: true,
  accountMergeDestinations: [DEST],
};

describe('loadFeePolicy and saveFeePolicy', () => {
  test('an app without a row has the defaults, as a copy callers may change', async () => {
    const { appId } = await newApp();
    const loaded = await loadFeePolicy(db, appId);
    assert.deepEqual(loaded, DEFAULT_FEE_POLICY);
    loaded.approvedAssets.push('native');
    assert.deepEqual(DEFAULT_FEE_POLICY.approvedAssets, []);
  });

  test('saves, replaces and reads back every field exactly, with an audit entry per change', async () => {
    const { appId, operatorId } = await newApp();
    const actor = { type: 'operator' as const, id: operatorId };
    assert.deepEqual(await saveFeePolicy(db, { appId, policy: custom, actor, at: AT, ip: '203.0.113.7' }), custom);
    assert.deepEqual(await loadFeePolicy(db, appId), custom);

    const replaced: FeePolicy = {
      ...DEFAULT_FEE_POLICY,
      approvedAssets: [],
      accountMergeDestinations: [],
      dailyOpsCap: 1,
    };
    assert.deepEqual(
      await saveFeePolicy(db, { appId, policy: replaced, actor, at: new Date(AT.getTime() + 1000) }),
      replaced,
    );
    assert.deepEqual(await loadFeePolicy(db, appId), replaced);
    assert.equal(
      Number((await db('fee_policies').where({ app_id: appId }).count<{ count: string }[]>({ count: '*' }))[0]!.count),
      1,
    );

    const entries = await db('audit_log').where({ app_id: appId, action: 'fee_policy.updated' }).orderBy('created_at');
    assert.equal(entries.length, 2);
    assert.equal(entries[0].actor_type, 'operator');
    assert.equal(entries[0].actor_id, operatorId);
    assert.equal(entries[0].ip, '203.0.113.7');
    assert.deepEqual(entries[0].details, {
      maxFeePerTxXlm: '0.1234567',
      dailyOpsCap: 500,
      approvedAssets: `native,${USDC}`,
      gasMinimumBalanceXlm: '25.0000001',
      allowAccountMerge: true,
      accountMergeDestinations: DEST,
    });
  });

  test('when the audit entry cannot be written, the policy is not changed either (one transaction)', async () => {
    const { appId, operatorId } = await newApp();
    await saveFeePolicy(db, { appId, policy: custom, actor: { type: 'operator', id: operatorId }, at: AT });
    // An operator actor without an id breaks audit_log_actor_check: the upsert before it has already run.
    const unauditable = { type: 'operator', id: null } as unknown as { type: 'operator'; id: string };
    await assert.rejects(
      saveFeePolicy(db, { appId, policy: DEFAULT_FEE_POLICY, actor: unauditable, at: AT }),
      /audit_log_actor_check/,
    );
    assert.deepEqual(await loadFeePolicy(db, appId), custom);
    assert.equal((await db('audit_log').where({ app_id: appId, action: 'fee_policy.updated' })).length, 1);
  });
});

describe('feePolicyView and feePolicyFromView', () => {
  test('the defaults as the contract writes them', () => {
    assert.deepEqual(feePolicyView(DEFAULT_FEE_POLICY), {
      maxFeePerTxXlm: '10',
      dailyOpsCap: null,
      approvedAssets: [],
      gasMinimumBalanceXlm: '10',
      allowAccountMerge: false,
      accountMergeDestinations: [],
    });
  });

  test('round trip through decimal strings keeps every stroop', () => {
    const view = feePolicyView(custom);
    assert.equal(view.maxFeePerTxXlm, '0.1234567');
    assert.equal(view.gasMinimumBalanceXlm, '25.0000001');
    assert.deepEqual(feePolicyFromView(view), custom);
    assert.equal(feePolicyFromView({ ...view, maxFeePerTxXlm: '0.0100000' }).maxFeeStroops, 100_000n);
  });
});

describe('feePolicyFieldErrors', () => {
  const valid: FeePolicyView = { ...feePolicyView(DEFAULT_FEE_POLICY) };
  const errors = (changes: Partial<FeePolicyView>, configured: string[] = [USDC]) =>
    feePolicyFieldErrors({ ...valid, ...changes }, configured);

  test('maxFeePerTxXlm: 0.01 to 100 XLM, both ends included', () => {
    for (const ok of ['0.01', '0.0100000', '0.0100001', '10', '99.9999999', '100'])
      assert.deepEqual(errors({ maxFeePerTxXlm: ok }), {}, ok);
    for (const bad of ['0', '0.0099999', '100.0000001', '101']) {
      assert.deepEqual(errors({ maxFeePerTxXlm: bad }), { maxFeePerTxXlm: ['must be between 0.01 and 100'] }, bad);
    }
  });

  test('approvedAssets: native or a configured asset', () => {
    assert.deepEqual(errors({ approvedAssets: ['native', USDC] }), {});
    assert.deepEqual(errors({ approvedAssets: [USDC, EURC] }), {
      approvedAssets: [`${EURC} is neither native nor one of the app's configured assets`],
    });
    assert.deepEqual(Object.keys(errors({ approvedAssets: [USDC] }, [])), ['approvedAssets']);
  });

  test('accountMergeDestinations: valid account ids (checksum)', () => {
    const badChecksum = `${DEST.slice(0, -1)}${DEST.endsWith('A') ? 'B' : 'A'}`;
    assert.deepEqual(errors({ accountMergeDestinations: [DEST] }), {});
    assert.deepEqual(Object.keys(errors({ accountMergeDestinations: [DEST, badChecksum] })), [
      'accountMergeDestinations',
    ]);
  });

  test('gasMinimumBalanceXlm: any amount up to one billion XLM (zero included)', () => {
    assert.deepEqual(errors({ gasMinimumBalanceXlm: '0' }), {});
    assert.deepEqual(errors({ gasMinimumBalanceXlm: '1000000000' }), {});
    assert.deepEqual(Object.keys(errors({ gasMinimumBalanceXlm: '999999999999.9999999' })), ['gasMinimumBalanceXlm']);
  });
});
