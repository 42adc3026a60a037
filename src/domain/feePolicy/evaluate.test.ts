// The fee-bump policy's rules, each at its boundary from both sides, the order reasons come in, the defaults, and the
// errors a denial answers (status, message in XLM, Retry-After).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../errors';
import { dailyCapReason, evaluatePolicy, policyError, type PolicyCode, type PolicyFacts } from './evaluate';
import { DEFAULT_FEE_POLICY, type FeePolicy } from './policy';

const USDC = 'USDC:GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5';
const EURC = 'EURC:GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2';
const DEST_A = 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2';
const DEST_B = 'GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5';
const XLM = 10_000_000n;

const policy = (changes: Partial<FeePolicy> = {}): FeePolicy => ({
  ...DEFAULT_FEE_POLICY,
  approvedAssets: [],
  accountMergeDestinations: [],
  ...changes,
});

/** A payment of XLM that passes every default rule. */
const facts = (changes: Partial<PolicyFacts> = {}): PolicyFacts => ({
  feeStroops: 200n,
  movedAssets: ['native'],
  operationTypes: ['payment'],
  accountMergeDestinations: [],
  gasBalanceStroops: 1000n * XLM,
  configuredAssets: [USDC],
  opsToday: 0,
  opsCount: 1,
  ...changes,
});

const codes = (p: FeePolicy, f: PolicyFacts): PolicyCode[] => evaluatePolicy(p, f).map((r) => r.code);

describe('evaluatePolicy', () => {
  test('the defaults: 10 XLM max fee, no cap, configured assets and XLM, 10 XLM gas minimum, no accountMerge', () => {
    assert.equal(DEFAULT_FEE_POLICY.maxFeeStroops, 100_000_000n);
    assert.equal(DEFAULT_FEE_POLICY.gasMinimumStroops, 100_000_000n);
    assert.equal(DEFAULT_FEE_POLICY.dailyOpsCap, null);
    assert.deepEqual(DEFAULT_FEE_POLICY.approvedAssets, []);
    assert.equal(DEFAULT_FEE_POLICY.allowAccountMerge, false);
    assert.deepEqual(DEFAULT_FEE_POLICY.accountMergeDestinations, []);
    assert.deepEqual(evaluatePolicy(DEFAULT_FEE_POLICY, facts()), []);
    assert.deepEqual(
      evaluatePolicy(DEFAULT_FEE_POLICY, facts({ movedAssets: ['native', USDC], opsToday: 1_000_000 })),
      [],
    );
  });

  test('max fee: below and equal pass, one stroop more fails, with both figures in XLM', () => {
    const p = policy({ maxFeeStroops: XLM / 100n }); // 0.01 XLM
    assert.deepEqual(codes(p, facts({ feeStroops: XLM / 100n - 1n })), []);
    assert.deepEqual(codes(p, facts({ feeStroops: XLM / 100n })), []);
    assert.deepEqual(codes(p, facts({ feeStroops: XLM / 100n + 1n })), ['TX_POLICY_MAX_FEE_EXCEEDED']);
    const [reason] = evaluatePolicy(p, facts({ feeStroops: XLM / 50n }));
    assert.equal(reason?.message, "The fee-bump fee 0.02 XLM exceeds the app's maximum of 0.01 XLM");
  });

  test('daily cap: reaching the cap exactly passes, one operation past it fails; a multi-operation transaction counts each', () => {
    const p = policy({ dailyOpsCap: 50 });
    assert.deepEqual(codes(p, facts({ opsToday: 48, opsCount: 1 })), [], 'cap - 1 after this transaction');
    assert.deepEqual(codes(p, facts({ opsToday: 49, opsCount: 1 })), [], 'exactly the cap');
    assert.deepEqual(codes(p, facts({ opsToday: 50, opsCount: 1 })), ['TX_POLICY_DAILY_OPS_CAP_EXCEEDED'], 'cap + 1');
    assert.deepEqual(codes(p, facts({ opsToday: 47, opsCount: 3 })), []);
    assert.deepEqual(codes(p, facts({ opsToday: 47, opsCount: 4 })), ['TX_POLICY_DAILY_OPS_CAP_EXCEEDED']);
    assert.deepEqual(
      codes(p, facts({ opsToday: 0, opsCount: 51 })),
      ['TX_POLICY_DAILY_OPS_CAP_EXCEEDED'],
      'one transaction larger than the cap',
    );
    assert.equal(
      evaluatePolicy(p, facts({ opsToday: 50 }))[0]?.message,
      'The daily limit of 50 operations is reached; it resets at 00:00 UTC',
    );
    assert.match(
      evaluatePolicy(p, facts({ opsToday: 47, opsCount: 4 }))[0]!.message,
      /4 operations would exceed the daily limit of 50 operations \(47 used today\)/,
    );
    assert.deepEqual(
      codes(policy({ dailyOpsCap: null }), facts({ opsToday: 1_000_000, opsCount: 100 })),
      [],
      'null: no cap',
    );
  });

  test('gas minimum: the balance must be above it; equal fails, one stroop more passes, a missing gas account fails', () => {
    const p = policy({ gasMinimumStroops: 10n * XLM });
    assert.deepEqual(codes(p, facts({ gasBalanceStroops: 10n * XLM + 1n })), []);
    assert.deepEqual(codes(p, facts({ gasBalanceStroops: 10n * XLM })), ['TX_POLICY_GAS_BALANCE_LOW']);
    assert.deepEqual(codes(p, facts({ gasBalanceStroops: 10n * XLM - 1n })), ['TX_POLICY_GAS_BALANCE_LOW']);
    assert.deepEqual(codes(p, facts({ gasBalanceStroops: undefined })), ['TX_POLICY_GAS_BALANCE_LOW']);
    assert.match(
      evaluatePolicy(p, facts({ gasBalanceStroops: 95n * (XLM / 10n) }))[0]!.message,
      /holds 9\.5 XLM, at or below its minimum of 10 XLM/,
    );
    assert.match(evaluatePolicy(p, facts({ gasBalanceStroops: undefined }))[0]!.message, /is not funded/);
    assert.deepEqual(
      codes(policy({ gasMinimumStroops: 0n }), facts({ gasBalanceStroops: 1n })),
      [],
      'a zero minimum still needs something',
    );
    assert.deepEqual(codes(policy({ gasMinimumStroops: 0n }), facts({ gasBalanceStroops: 0n })), [
      'TX_POLICY_GAS_BALANCE_LOW',
    ]);
  });

  test('approved assets: empty approves the configured assets and XLM only', () => {
    const p = policy();
    assert.deepEqual(codes(p, facts({ movedAssets: ['native', USDC] })), []);
    assert.deepEqual(codes(p, facts({ movedAssets: [USDC, EURC] })), ['TX_POLICY_ASSET_NOT_APPROVED']);
    assert.deepEqual(codes(p, facts({ movedAssets: [USDC], configuredAssets: [] })), ['TX_POLICY_ASSET_NOT_APPROVED']);
    assert.deepEqual(codes(p, facts({ movedAssets: [] })), [], 'an operation that moves nothing');
    assert.match(
      evaluatePolicy(p, facts({ movedAssets: [EURC, EURC] }))[0]!.message,
      new RegExp(`moves ${EURC}, which the app has not approved`),
    );
  });

  test('approved assets: a list approves exactly its assets, XLM included only when listed', () => {
    const onlyUsdc = policy({ approvedAssets: [USDC] });
    assert.deepEqual(codes(onlyUsdc, facts({ movedAssets: [USDC] })), []);
    assert.deepEqual(codes(onlyUsdc, facts({ movedAssets: ['native'] })), ['TX_POLICY_ASSET_NOT_APPROVED']);
    assert.deepEqual(
      codes(onlyUsdc, facts({ movedAssets: [USDC, 'native'] })),
      ['TX_POLICY_ASSET_NOT_APPROVED'],
      'a path through XLM',
    );
    assert.match(evaluatePolicy(onlyUsdc, facts({ movedAssets: ['native'] }))[0]!.message, /XLM \(native\)/);
    assert.deepEqual(codes(policy({ approvedAssets: ['native'] }), facts({ movedAssets: ['native'] })), []);
    assert.deepEqual(codes(policy({ approvedAssets: ['native'] }), facts({ movedAssets: [USDC] })), [
      'TX_POLICY_ASSET_NOT_APPROVED',
    ]);
    assert.deepEqual(
      codes(policy({ approvedAssets: [USDC.toLowerCase()] }), facts({ movedAssets: [USDC] })),
      ['TX_POLICY_ASSET_NOT_APPROVED'],
      'asset codes are case-sensitive',
    );
  });

  test('accountMerge: refused by default, allowed when enabled, then only to listed destinations (empty: any)', () => {
    const merge = (to: string[]) =>
      facts({ operationTypes: ['accountMerge'], accountMergeDestinations: to, movedAssets: [] });
    assert.deepEqual(codes(policy(), merge([DEST_A])), ['TX_POLICY_OPERATION_NOT_ALLOWED']);
    assert.deepEqual(
      codes(policy({ accountMergeDestinations: [DEST_A] }), merge([DEST_A])),
      ['TX_POLICY_OPERATION_NOT_ALLOWED'],
      'destinations ignored while merges are refused',
    );
    assert.deepEqual(codes(policy({ allowAccountMerge: true }), merge([DEST_A])), []);
    assert.deepEqual(
      codes(policy({ allowAccountMerge: true, accountMergeDestinations: [DEST_A] }), merge([DEST_A])),
      [],
    );
    assert.deepEqual(codes(policy({ allowAccountMerge: true, accountMergeDestinations: [DEST_A] }), merge([DEST_B])), [
      'TX_POLICY_OPERATION_NOT_ALLOWED',
    ]);
    assert.deepEqual(
      codes(policy({ allowAccountMerge: true, accountMergeDestinations: [DEST_A] }), merge([DEST_A, DEST_B])),
      ['TX_POLICY_OPERATION_NOT_ALLOWED'],
      'every merge must go to a listed one',
    );
    assert.match(
      evaluatePolicy(policy({ allowAccountMerge: true, accountMergeDestinations: [DEST_A] }), merge([DEST_B]))[0]!
        .message,
      new RegExp(DEST_B),
    );
    assert.equal(
      evaluatePolicy(policy(), merge([DEST_A]))[0]?.message,
      "accountMerge is not allowed by the app's fee policy",
    );
    assert.deepEqual(
      codes(policy(), facts({ operationTypes: ['payment', 'changeTrust', 'manageData'] })),
      [],
      'other operations pass',
    );
  });

  test('every failing rule is reported, in the order operation, asset, fee, daily cap, gas', () => {
    const p = policy({ maxFeeStroops: XLM / 100n, dailyOpsCap: 1 });
    const all = facts({
      operationTypes: ['payment', 'accountMerge'],
      accountMergeDestinations: [DEST_A],
      movedAssets: [EURC],
      feeStroops: XLM,
      opsToday: 1,
      opsCount: 2,
      gasBalanceStroops: 0n,
    });
    assert.deepEqual(codes(p, all), [
      'TX_POLICY_OPERATION_NOT_ALLOWED',
      'TX_POLICY_ASSET_NOT_APPROVED',
      'TX_POLICY_MAX_FEE_EXCEEDED',
      'TX_POLICY_DAILY_OPS_CAP_EXCEEDED',
      'TX_POLICY_GAS_BALANCE_LOW',
    ]);
    assert.deepEqual(codes(p, { ...all, feeStroops: 1n, gasBalanceStroops: 100n * XLM }), [
      'TX_POLICY_OPERATION_NOT_ALLOWED',
      'TX_POLICY_ASSET_NOT_APPROVED',
      'TX_POLICY_DAILY_OPS_CAP_EXCEEDED',
    ]);
  });
});

describe('policyError', () => {
  const at = new Date('2030-06-15T23:59:30.250Z');

  test('each code answers its status with the reason as message', () => {
    const statuses: Record<PolicyCode, number> = {
      TX_POLICY_MAX_FEE_EXCEEDED: 403,
      TX_POLICY_ASSET_NOT_APPROVED: 403,
      TX_POLICY_OPERATION_NOT_ALLOWED: 403,
      TX_POLICY_DAILY_OPS_CAP_EXCEEDED: 429,
      TX_POLICY_GAS_BALANCE_LOW: 503,
    };
    for (const [code, status] of Object.entries(statuses) as [PolicyCode, number][]) {
      const err = policyError({ code, message: `reason for ${code}` }, at);
      assert.ok(err instanceof AppError);
      assert.equal(err.code, code);
      assert.equal(err.status, status);
      assert.equal(err.message, `reason for ${code}`);
    }
  });

  test('Retry-After: seconds to the next 00:00 UTC for the daily cap, 60 for a low gas wallet, none otherwise', () => {
    assert.deepEqual(policyError(dailyCapReason(50, 50, 1), at).headers, { 'Retry-After': '30' });
    assert.deepEqual(policyError(dailyCapReason(50, 50, 1), new Date('2030-06-15T00:00:00.000Z')).headers, {
      'Retry-After': '86400',
    });
    assert.deepEqual(policyError({ code: 'TX_POLICY_GAS_BALANCE_LOW', message: 'low' }, at).headers, {
      'Retry-After': '60',
    });
    assert.deepEqual(policyError({ code: 'TX_POLICY_MAX_FEE_EXCEEDED', message: 'fee' }, at).headers, {});
  });
});
