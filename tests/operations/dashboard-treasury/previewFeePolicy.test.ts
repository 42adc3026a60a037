// previewFeePolicy (POST /api/v1/apps/{appId}/fee-policy/dry-run): the fee-bump policy's decision on a described
// transaction, against the real service and its localnet (the gas wallet's balance is read from the chain). Shared
// set-up: setup.ts (the service), feePolicy.setup.ts (the policy's constants and calls).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { reserveDailyOps } from '../../../src/domain/feePolicy/dailyOps';
import { fromStroops } from '../../../src/domain/money/amounts';
import { findOrCreateUser } from '../../../src/domain/users/users';
import { gatewayOf } from '../../support/funding';
import { signInOperator, teamAppOf, type OperatorClient } from '../../support/operators';
import { startTestService, type TestService } from '../../support/service';
import { DEFAULTS, DEST, USDC, get, put } from './feePolicy.setup';
import { ctx, newUnfundedApp, useService, walletOnChain } from './setup';

const OTHER_DEST = 'GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5';
const PAY_XLM = { operations: [{ type: 'payment', asset: 'native' }], feeXlm: '0.00002' };

const dryRun = (client: OperatorClient, appId: string, body: unknown) =>
  client.call('previewFeePolicy', 'POST', `/api/v1/apps/${appId}/fee-policy/dry-run`, { body });

/** The reasons' codes of a 200 answer. */
const codesOf = (res: { body: any }): string[] => res.body.content.reasons.map((r: { code: string }) => r.code);

let developer: OperatorClient;
let outsider: OperatorClient;
/** An app of ctx.operator whose global wallet (its gas wallet) friendbot funded, with a developer member. */
let appId: string;
/** That wallet's XLM balance on the chain, in stroops. */
let gasStroops: bigint;

/** A new end user of the app with `ops` sponsored operations counted today. */
async function userWithOpsToday(ofApp: string, ops: number): Promise<string> {
  const email = `dry-run-${Date.now()}-${Math.random()}@example.com`;
  const user = await findOrCreateUser(ctx.svc.deps.db, {
    appId: ofApp,
    identity: { provider: 'email', subject: email, email },
    now: new Date(),
  });
  if (ops > 0)
    assert.ok(
      await reserveDailyOps(ctx.svc.deps.db, {
        appId: ofApp,
        userId: user.id,
        at: ctx.svc.deps.clock.now(),
        ops,
        cap: null,
      }),
    );
  return user.id;
}

describe('previewFeePolicy', () => {
  useService();
  before(async () => {
    [developer, outsider] = await Promise.all([signInOperator(ctx.svc), signInOperator(ctx.svc)]);
    appId = await teamAppOf(ctx.operator, [[developer, 'developer']], 'Dry run app');
    const publicKey = await walletOnChain(appId);
    gasStroops = (await gatewayOf(ctx.svc).loadAccount(publicKey))!.balanceStroops;
  });

  test('allow: the saved (default) policy, the gas balance read from the chain, no user', async () => {
    const res = await dryRun(ctx.operator, appId, { transaction: PAY_XLM });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'FEE_POLICY_PREVIEWED');
    assert.deepEqual(res.body.content, {
      decision: 'allow',
      reasons: [],
      policy: DEFAULTS,
      gasBalanceXlm: fromStroops(gasStroops),
      opsToday: 0,
    });
  });

  test('any member may run it, whatever their role (read-level, as getFeePolicy)', async () => {
    const res = await dryRun(developer, appId, { transaction: PAY_XLM });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.content.decision, 'allow');
  });

  test('TX_POLICY_MAX_FEE_EXCEEDED: a fee above the maximum (equal passes)', async () => {
    const over = await dryRun(ctx.operator, appId, { transaction: { ...PAY_XLM, feeXlm: '10.0000001' } });
    assert.equal(over.status, 200, over.text);
    assert.equal(over.body.content.decision, 'deny');
    assert.deepEqual(over.body.content.reasons, [
      {
        code: 'TX_POLICY_MAX_FEE_EXCEEDED',
        message: "The fee-bump fee 10.0000001 XLM exceeds the app's maximum of 10 XLM",
      },
    ]);
    const equal = await dryRun(ctx.operator, appId, { transaction: { ...PAY_XLM, feeXlm: '10' } });
    assert.equal(equal.body.content.decision, 'allow');
  });

  test('TX_POLICY_ASSET_NOT_APPROVED: an asset the app does not configure, in any operation that moves it', async () => {
    for (const operation of [
      { type: 'payment', asset: USDC },
      { type: 'changeTrust', asset: USDC },
      { type: 'pathPaymentStrictSend', sendAsset: 'native', destAsset: 'native', path: [USDC] },
      { type: 'manageSellOffer', selling: 'native', buying: USDC },
    ]) {
      const res = await dryRun(ctx.operator, appId, {
        transaction: { operations: [{ type: 'payment', asset: 'native' }, operation], feeXlm: '0.00003' },
      });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(codesOf(res), ['TX_POLICY_ASSET_NOT_APPROVED'], JSON.stringify(operation));
      assert.match(res.body.content.reasons[0].message, /USDC:GBBD47IF/);
    }
    const plain = await dryRun(ctx.operator, appId, {
      transaction: {
        operations: [{ type: 'createAccount' }, { type: 'setOptions' }, { type: 'manageData' }],
        feeXlm: '0.00004',
      },
    });
    assert.equal(plain.body.content.decision, 'allow', 'XLM only, or no asset at all');
  });

  test('TX_POLICY_OPERATION_NOT_ALLOWED: accountMerge unless allowed, then only to a listed destination', async () => {
    const merge = { operations: [{ type: 'accountMerge', destination: DEST }], feeXlm: '0.00002' };
    const refused = await dryRun(ctx.operator, appId, { transaction: merge });
    assert.equal(refused.status, 200, refused.text);
    assert.deepEqual(refused.body.content.reasons, [
      { code: 'TX_POLICY_OPERATION_NOT_ALLOWED', message: "accountMerge is not allowed by the app's fee policy" },
    ]);
    const allowed = await dryRun(ctx.operator, appId, {
      policy: { ...DEFAULTS, allowAccountMerge: true },
      transaction: merge,
    });
    assert.equal(allowed.body.content.decision, 'allow');
    const elsewhere = await dryRun(ctx.operator, appId, {
      policy: { ...DEFAULTS, allowAccountMerge: true, accountMergeDestinations: [OTHER_DEST] },
      transaction: merge,
    });
    assert.deepEqual(codesOf(elsewhere), ['TX_POLICY_OPERATION_NOT_ALLOWED']);
    assert.match(elsewhere.body.content.reasons[0].message, new RegExp(`accountMerge to ${DEST}`));
  });

  test("TX_POLICY_DAILY_OPS_CAP_EXCEEDED: the user's operations today plus this transaction's past the cap", async () => {
    const userId = await userWithOpsToday(appId, 3);
    const policy = { ...DEFAULTS, dailyOpsCap: 4 };
    const twoOps = { operations: [PAY_XLM.operations[0], PAY_XLM.operations[0]], feeXlm: '0.00003' };
    const over = await dryRun(ctx.operator, appId, { policy, transaction: twoOps, userId });
    assert.equal(over.status, 200, over.text);
    assert.equal(over.body.content.opsToday, 3);
    assert.deepEqual(over.body.content.reasons, [
      {
        code: 'TX_POLICY_DAILY_OPS_CAP_EXCEEDED',
        message:
          "The transaction's 2 operations would exceed the daily limit of 4 operations (3 used today); it resets at 00:00 UTC",
      },
    ]);
    const reaching = await dryRun(ctx.operator, appId, { policy, transaction: PAY_XLM, userId });
    assert.equal(reaching.body.content.decision, 'allow', 'reaching the cap exactly passes');
    const noUser = await dryRun(ctx.operator, appId, { policy, transaction: twoOps });
    assert.equal(noUser.body.content.opsToday, 0);
    assert.equal(noUser.body.content.decision, 'allow', 'without userId no operations are counted');
    const fresh = await dryRun(ctx.operator, appId, {
      policy,
      transaction: twoOps,
      userId: await userWithOpsToday(appId, 0),
    });
    assert.deepEqual([fresh.body.content.opsToday, fresh.body.content.decision], [0, 'allow']);
  });

  test('TX_POLICY_GAS_BALANCE_LOW: a gas wallet at its minimum (equal fails) or with no account', async () => {
    const atMinimum = await dryRun(ctx.operator, appId, {
      policy: { ...DEFAULTS, gasMinimumBalanceXlm: fromStroops(gasStroops) },
      transaction: PAY_XLM,
    });
    assert.equal(atMinimum.status, 200, atMinimum.text);
    assert.deepEqual(codesOf(atMinimum), ['TX_POLICY_GAS_BALANCE_LOW']);
    assert.equal(atMinimum.body.content.gasBalanceXlm, fromStroops(gasStroops));
    const below = await dryRun(ctx.operator, appId, {
      policy: { ...DEFAULTS, gasMinimumBalanceXlm: fromStroops(gasStroops - 1n) },
      transaction: PAY_XLM,
    });
    assert.equal(below.body.content.decision, 'allow');

    const unfunded = await newUnfundedApp('Dry run, no gas');
    const none = await dryRun(ctx.operator, unfunded, { transaction: PAY_XLM });
    assert.equal(none.status, 200, none.text);
    assert.equal(none.body.content.gasBalanceXlm, null);
    assert.deepEqual(none.body.content.reasons, [
      {
        code: 'TX_POLICY_GAS_BALANCE_LOW',
        message: "Sponsorship is paused; the app's gas wallet is not funded, at or below its minimum of 10 XLM",
      },
    ]);
  });

  test('every broken rule is reported, in order: operation, asset, fee, daily cap, gas', async () => {
    const userId = await userWithOpsToday(appId, 1);
    const res = await dryRun(ctx.operator, appId, {
      policy: { ...DEFAULTS, maxFeePerTxXlm: '0.01', dailyOpsCap: 2, gasMinimumBalanceXlm: fromStroops(gasStroops) },
      transaction: {
        operations: [
          { type: 'accountMerge', destination: DEST },
          { type: 'payment', asset: USDC },
        ],
        feeXlm: '0.0100001',
      },
      userId,
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(codesOf(res), [
      'TX_POLICY_OPERATION_NOT_ALLOWED',
      'TX_POLICY_ASSET_NOT_APPROVED',
      'TX_POLICY_MAX_FEE_EXCEEDED',
      'TX_POLICY_DAILY_OPS_CAP_EXCEEDED',
      'TX_POLICY_GAS_BALANCE_LOW',
    ]);
  });

  test('a draft is judged instead of the saved policy, and answered as sent; without one, the saved policy', async () => {
    const app = await teamAppOf(ctx.operator, [], 'Dry run, draft and saved');
    await walletOnChain(app);
    const saved = { ...DEFAULTS, maxFeePerTxXlm: '0.01', dailyOpsCap: 7 };
    assert.equal((await put(ctx.operator, app, saved)).status, 200);
    const fee = { ...PAY_XLM, feeXlm: '0.02' };

    const underSaved = await dryRun(ctx.operator, app, { transaction: fee });
    assert.deepEqual(codesOf(underSaved), ['TX_POLICY_MAX_FEE_EXCEEDED']);
    assert.deepEqual(underSaved.body.content.policy, saved);

    const draft = { ...DEFAULTS, maxFeePerTxXlm: '0.0200000' };
    const underDraft = await dryRun(ctx.operator, app, { policy: draft, transaction: fee });
    assert.equal(underDraft.body.content.decision, 'allow');
    assert.deepEqual(underDraft.body.content.policy, { ...draft, maxFeePerTxXlm: '0.02' }, 'in canonical form');
    assert.deepEqual((await get(ctx.operator, app)).body.content, saved, 'the draft is not saved');
  });

  test("nothing is written: the app's audit entries, policy, counts, transactions, wallets and users stay as they were", async () => {
    const userId = await userWithOpsToday(appId, 2);
    const db = ctx.svc.deps.db;
    const tables = ['audit_log', 'fee_policies', 'daily_op_counts', 'transactions', 'wallets', 'users'];
    const snapshot = async () =>
      Promise.all([
        ...tables.map(async (t) => [t, await db(t).where({ app_id: appId }).select('*')]),
        db('fee_policies').where({ app_id: appId }).first(),
      ]);
    const before = await snapshot();
    for (const body of [
      { transaction: PAY_XLM, userId },
      { policy: { ...DEFAULTS, dailyOpsCap: 1 }, transaction: PAY_XLM, userId },
      { policy: { ...DEFAULTS, allowAccountMerge: true }, transaction: PAY_XLM },
      { policy: { ...DEFAULTS, maxFeePerTxXlm: '101' }, transaction: PAY_XLM },
    ]) {
      const res = await dryRun(ctx.operator, appId, body);
      assert.ok(res.status === 200 || res.status === 400, res.text);
    }
    assert.deepEqual(await snapshot(), before);
    assert.equal(before[tables.length], undefined, 'the app never saved a policy, and still has none');
  });

  test('400 VALIDATION_ERROR: a bad draft as updateFeePolicy answers it (under `policy.`), a bad description', async () => {
    const draftCases: [Record<string, unknown>, Record<string, string[]>][] = [
      [{ maxFeePerTxXlm: '101' }, { 'policy.maxFeePerTxXlm': ['must be between 0.01 and 100'] }],
      [
        { approvedAssets: [USDC] },
        { 'policy.approvedAssets': [`${USDC} is neither native nor one of the app's configured assets`] },
      ],
      [
        { allowAccountMerge: true, accountMergeDestinations: [`${DEST.slice(0, -1)}A`] },
        {
          'policy.accountMergeDestinations': [
            `${DEST.slice(0, -1)}A is not a valid Stellar account id (G..., checksum)`,
          ],
        },
      ],
    ];
    for (const [change, fieldErrors] of draftCases) {
      const res = await dryRun(ctx.operator, appId, { policy: { ...DEFAULTS, ...change }, transaction: PAY_XLM });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.deepEqual(res.body.details.fieldErrors, fieldErrors);
    }
    const badMerge = await dryRun(ctx.operator, appId, {
      transaction: { operations: [{ type: 'accountMerge', destination: `${DEST.slice(0, -1)}A` }], feeXlm: '1' },
    });
    assert.deepEqual(badMerge.body.details.fieldErrors, {
      'transaction.operations.0.destination': [
        `${DEST.slice(0, -1)}A is not a valid Stellar account id (G..., checksum)`,
      ],
    });

    // the contract's forms, checked by the router before the handler
    const formCases: [unknown, string][] = [
      [{ policy: { ...DEFAULTS, dailyOpsCap: 0 }, transaction: PAY_XLM }, 'policy.dailyOpsCap'],
      [{ policy: { ...DEFAULTS, dailyOpsCap: undefined }, transaction: PAY_XLM }, 'policy.dailyOpsCap'],
      [{}, 'transaction'],
      [{ transaction: { operations: [], feeXlm: '1' } }, 'transaction.operations'],
      [{ transaction: { operations: Array(101).fill(PAY_XLM.operations[0]), feeXlm: '1' } }, 'transaction.operations'],
      [{ transaction: { operations: [{ type: 'payment' }], feeXlm: '1' } }, 'transaction.operations.0.asset'],
      [
        { transaction: { operations: [{ type: 'accountMerge' }], feeXlm: '1' } },
        'transaction.operations.0.destination',
      ],
      [{ transaction: { operations: [{ type: 'invokeHostFunction' }], feeXlm: '1' } }, 'transaction.operations.0.type'],
      [
        { transaction: { operations: [{ type: 'payment', asset: 'XLM' }], feeXlm: '1' } },
        'transaction.operations.0.asset',
      ],
      [{ transaction: { ...PAY_XLM, feeXlm: '1e1' } }, 'transaction.feeXlm'],
      [{ transaction: { ...PAY_XLM, feeXlm: '0.00000001' } }, 'transaction.feeXlm'],
      [{ transaction: { operations: PAY_XLM.operations } }, 'transaction.feeXlm'],
      [{ transaction: PAY_XLM, userId: 'bob' }, 'userId'],
      [{ transaction: PAY_XLM, dryRun: true }, 'dryRun'],
    ];
    for (const [body, field] of formCases) {
      const res = await dryRun(ctx.operator, appId, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.ok(res.body.details.fieldErrors[field], `${JSON.stringify(body)}: ${JSON.stringify(res.body.details)}`);
    }
  });

  test("404 USER_NOT_FOUND: a userId the app does not have (another app's user included)", async () => {
    const otherApp = await newUnfundedApp('Dry run, other users');
    for (const userId of ['usr_01JD3X5K7Q9T2M4N6P8R0S1V3W', await userWithOpsToday(otherApp, 1)]) {
      const res = await dryRun(ctx.operator, appId, { transaction: PAY_XLM, userId });
      assert.equal(res.status, 404, res.text);
      assert.equal(res.body.code, 'USER_NOT_FOUND');
    }
  });

  test("another operator's app, or none: 404 APPLICATION_NOT_FOUND", async () => {
    for (const res of [
      await dryRun(outsider, appId, { transaction: PAY_XLM }),
      await dryRun(ctx.operator, 'app_01JD3X5K7Q9T2M4N6P8R0S1V3W', { transaction: PAY_XLM }),
    ]) {
      assert.equal(res.status, 404, res.text);
      assert.equal(res.body.code, 'APPLICATION_NOT_FOUND');
    }
  });

  test('an archived app: 404 APPLICATION_NOT_FOUND, as getFeePolicy; it runs again once restored', async () => {
    const app = await newUnfundedApp('Dry run, archived');
    await ctx.operator.call('archiveApp', 'POST', `/api/v1/apps/${app}/archive`);
    const archived = await dryRun(ctx.operator, app, { transaction: PAY_XLM });
    assert.equal(archived.status, 404, archived.text);
    assert.equal(archived.body.code, 'APPLICATION_NOT_FOUND');
    await ctx.operator.call('restoreApp', 'POST', `/api/v1/apps/${app}/restore`);
    assert.equal((await dryRun(ctx.operator, app, { transaction: PAY_XLM })).status, 200);
  });
});

describe('previewFeePolicy: Stellar RPC unreachable', () => {
  let down: TestService;
  before(async () => {
    down = await startTestService();
  });
  after(() => down?.stop());

  test('503 STELLAR_UNAVAILABLE with Retry-After: the gas balance is unknown, so no decision', async () => {
    const operator = await signInOperator(down);
    const app = await teamAppOf(operator, [], 'Dry run, chain down');
    await down.localnet!.stop();
    const res = await dryRun(operator, app, { transaction: PAY_XLM });
    assert.equal(res.status, 503, res.text);
    assert.equal(res.body.code, 'STELLAR_UNAVAILABLE');
    assert.ok(res.headers.get('retry-after'));
  });
});
