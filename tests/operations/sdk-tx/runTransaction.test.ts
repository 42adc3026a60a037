// runTransaction (POST /v1/tx/run): build, sign and submit in one call. Shared set-up: feeBump.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Operation } from '@stellar/stellar-sdk';
import { gatewayOf } from '../../support/funding';
import {
  app,
  appWalletKey,
  feeBumpsSigned,
  fundedUser,
  pay,
  setPolicy,
  signOps,
  submitOps,
  svc,
  topUp,
  useService,
  waitForSequence,
} from './feeBump.setup';

describe('runTransaction', () => {
  useService();

  describe('submission reaches the chain once', () => {
    test('50 parallel runs with one Idempotency-Key and the same body pay once; a different body with the key is 422', async () => {
      await setPolicy({});
      const user = await fundedUser();
      await topUp(user, '5');
      const gw = gatewayOf(svc);
      const seqBefore = BigInt((await gw.loadAccount(user.signIn.wallet.publicKey))!.sequence);
      const answers = await Promise.all(
        Array.from({ length: 50 }, () =>
          user.rawCall('POST', '/v1/tx/run', { headers: { 'idempotency-key': 'pay-once-2' }, body: pay('1') }),
        ),
      );
      for (const a of answers) assert.ok([200, 409].includes(a.status), `${a.status} ${a.text}`);
      const ok = answers.filter((a) => a.status === 200);
      assert.ok(ok.length >= 1);
      assert.equal(new Set(ok.map((a) => a.body.content.hash)).size, 1, 'replays answer the same transaction');
      assert.equal(await feeBumpsSigned(user), 1);
      await waitForSequence(user, seqBefore + 1n);
      const reused = await user.rawCall('POST', '/v1/tx/run', {
        headers: { 'idempotency-key': 'pay-once-2' },
        body: pay('2'),
      });
      assert.equal(reused.status, 422);
      assert.equal(reused.body.code, 'IDEMPOTENCY_KEY_REUSED');
    });
  });

  describe('keys and records', () => {
    /** The key.decrypt entries of the user's wallet (`tx.sign`) and of any wallet for the user's runs (`tx.fee_bump`). */
    async function keyUses(user: Awaited<ReturnType<typeof fundedUser>>): Promise<{ sign: number; feeBump: number }> {
      const rows = await svc.deps
        .db('audit_log')
        .where({ action: 'key.decrypt', actor_type: 'user', actor_id: user.userId })
        .select('purpose', 'wallet_id');
      return {
        sign: rows.filter((r) => r.purpose === 'tx.sign' && r.wallet_id === user.signIn.wallet.walletId).length,
        feeBump: rows.filter((r) => r.purpose === 'tx.fee_bump' && r.wallet_id !== user.signIn.wallet.walletId).length,
      };
    }

    test('a run audits one use of the user key and one of the gas key, and records the signed transaction and its envelope', async () => {
      await setPolicy({});
      const user = await fundedUser();
      await topUp(user, '1');
      const before = await keyUses(user);
      const res = await user.rawCall('POST', '/v1/tx/run', { body: pay('0.1') });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(await keyUses(user), { sign: before.sign + 1, feeBump: before.feeBump + 1 });
      const row = await svc.deps.db('transactions').where({ id: res.body.content.txId }).first();
      assert.ok(row.signed_xdr, 'the signed inner transaction is recorded');
      assert.ok(row.envelope_xdr, 'the fee-bump envelope is recorded');
      assert.equal(row.hash, res.body.content.hash);
      assert.ok(row.sent_at, 'the RPC accepted it');
    });

    test('a denied run is recorded and signs nothing: no key decrypted, no signed transaction', async () => {
      const user = await fundedUser();
      await setPolicy({ maxFeeStroops: 1n });
      const before = await keyUses(user);
      const denied = await user.rawCall('POST', '/v1/tx/run', { body: pay('0.1') });
      assert.equal(denied.status, 403, denied.text);
      assert.deepEqual(await keyUses(user), before);
      const row = await svc.deps
        .db('transactions')
        .where({ user_id: user.userId, stage: 'denied' })
        .orderBy('created_at', 'desc')
        .first();
      assert.equal(row.result_code, 'TX_POLICY_MAX_FEE_EXCEEDED');
      assert.equal(row.signed_xdr, null);
      assert.equal(row.envelope_xdr, null);
      await setPolicy({});
    });
  });

  describe('the fee-bump policy', () => {
    test('100 concurrent runs against a daily cap of 10: exactly 10 fee-bumps signed, the rest 429', async () => {
      await setPolicy({ dailyOpsCap: 10 });
      const user = await fundedUser();
      // 100 distinct transactions (a build of identical content in the same second is one and the same transaction)
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          user.rawCall('POST', '/v1/tx/run', { body: pay(`0.${String(i + 1).padStart(7, '0')}`) }),
        ),
      );
      const capped = answers.filter((a) => a.status === 429);
      assert.equal(capped.length, 90, answers.map((a) => a.status).join(','));
      for (const a of capped) assert.equal(a.body.code, 'TX_POLICY_DAILY_OPS_CAP_EXCEEDED');
      assert.ok(Number(capped[0]!.headers.get('retry-after')) > 0);
      assert.equal(await feeBumpsSigned(user), 10);
      const [{ ops }] = await svc.deps
        .db('daily_op_counts')
        .where({ app_id: app.id, user_id: user.userId })
        .select('ops');
      assert.ok(ops <= 10, `counted ${ops}`);
    });

    test('the daily cap at cap-1 passes and at cap+1 fails', async () => {
      await setPolicy({ dailyOpsCap: 2 });
      const user = await fundedUser();
      await topUp(user, '1');
      assert.equal((await user.rawCall('POST', '/v1/tx/run', { body: pay('0.1') })).status, 200);
      assert.equal((await user.rawCall('POST', '/v1/tx/run', { body: pay('0.1') })).status, 200);
      const third = await user.rawCall('POST', '/v1/tx/run', { body: pay('0.1') });
      assert.equal(third.status, 429);
      assert.equal(third.body.code, 'TX_POLICY_DAILY_OPS_CAP_EXCEEDED');
    });

    test('max fee: equal passes, one stroop under the fee fails with 403 and is recorded FAILED in history', async () => {
      const user = await fundedUser();
      await topUp(user, '1');
      // A one-operation transaction at the base fee: fee-bump fee = 100 x 2 stroops.
      await setPolicy({ maxFeeStroops: 200n });
      assert.equal((await user.rawCall('POST', '/v1/tx/run', { body: pay('0.1') })).status, 200);
      await setPolicy({ maxFeeStroops: 199n });
      const denied = await user.rawCall('POST', '/v1/tx/run', { body: pay('0.1') });
      assert.equal(denied.status, 403);
      assert.equal(denied.body.code, 'TX_POLICY_MAX_FEE_EXCEEDED');
      const history = await user.call('getTxHistory', 'GET', '/v1/tx/history');
      assert.equal(history.body.content.records[0].status, 'FAILED');
      assert.equal(history.body.content.records[0].resultCode, 'TX_POLICY_MAX_FEE_EXCEEDED');
      const audit = await svc.deps
        .db('audit_log')
        .where({ action: 'tx.policy_denied', actor_id: user.userId })
        .select('purpose');
      assert.deepEqual(
        audit.map((a) => a.purpose),
        ['TX_POLICY_MAX_FEE_EXCEEDED'],
      );
    });

    test('a dry run answers every failing rule without signing; approved assets, accountMerge and the gas minimum each answer their own code', async () => {
      const user = await fundedUser();
      await setPolicy({ approvedAssets: [`USDC:${appWalletKey}`], maxFeeStroops: 100n });
      const dry = await user.call('runTransaction', 'POST', '/v1/tx/run', { body: { ...pay('1'), dryRun: true } });
      assert.equal(dry.status, 200, dry.text);
      assert.equal(dry.body.content.dryRun, true);
      assert.equal(dry.body.content.status, 'dry_run');
      assert.equal(dry.body.content.hash, undefined, 'nothing was sent: no hash');
      assert.equal(dry.body.content.txId, undefined, 'nothing was kept: no txId');
      assert.equal(dry.body.content.policy.decision, 'deny');
      assert.deepEqual(dry.body.content.policy.reasons.map((r: { code: string }) => r.code).sort(), [
        'TX_POLICY_ASSET_NOT_APPROVED',
        'TX_POLICY_MAX_FEE_EXCEEDED',
      ]);
      assert.equal(await feeBumpsSigned(user), 0);
      const denied = await user.rawCall('POST', '/v1/tx/run', { body: pay('1') });
      assert.equal(denied.status, 403);
      assert.equal(denied.body.code, 'TX_POLICY_ASSET_NOT_APPROVED');

      const gw = gatewayOf(svc);
      const gasBalance = (await gw.loadAccount(appWalletKey))!.balanceStroops;
      await setPolicy({ gasMinimumStroops: gasBalance });
      const low = await user.rawCall('POST', '/v1/tx/run', { body: pay('1') });
      assert.equal(low.status, 503);
      assert.equal(low.body.code, 'TX_POLICY_GAS_BALANCE_LOW');

      await setPolicy({});
      const merge = await submitOps(user, [Operation.accountMerge({ destination: appWalletKey })]);
      assert.equal(merge.status, 403, merge.text);
      assert.equal(merge.body.code, 'TX_POLICY_OPERATION_NOT_ALLOWED');
      const allowed = await user.call('submitTransaction', 'POST', '/v1/tx/submit', {
        body: { signedXdr: await signOps(user, [Operation.accountMerge({ destination: appWalletKey })]), dryRun: true },
      });
      assert.equal(allowed.body.content.policy.decision, 'deny');
      await setPolicy({ allowAccountMerge: true, accountMergeDestinations: [appWalletKey] });
      const preview = await user.call('submitTransaction', 'POST', '/v1/tx/submit', {
        body: { signedXdr: await signOps(user, [Operation.accountMerge({ destination: appWalletKey })]), dryRun: true },
      });
      assert.equal(preview.body.content.policy.decision, 'allow', JSON.stringify(preview.body));
      assert.equal(preview.body.content.status, 'dry_run');
      assert.equal(preview.body.content.hash, undefined);
      assert.equal(
        (
          await svc.deps
            .db('transactions')
            .whereNotNull('envelope_xdr')
            .where({ user_id: user.userId, operation: 'accountMerge' })
        ).length,
        0,
        'nothing signed by the gas wallet',
      );
      await setPolicy({});
    });
  });
});
