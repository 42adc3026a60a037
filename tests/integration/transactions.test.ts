// Sponsored transactions under pressure and refusal, on the real service (PostgreSQL + localnet, a ledger every
// 200 ms): Idempotency-Key and duplicate submissions reach the chain once, the daily operations cap is never
// overshot, each policy rule answers its own code (and is recorded), and the checks on signed XDRs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Asset, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import type { App } from '../../src/domain/apps/store';
import { saveFeePolicy, DEFAULT_FEE_POLICY, type FeePolicy } from '../../src/domain/feePolicy/policy';
import { SYSTEM_ACTOR } from '../../src/domain/audit/auditLog';
import { startTestService, type TestService } from '../support/service';
import { signInUser, type UserClient } from '../support/users';
import { appWithWallet, gatewayOf } from '../support/funding';

let svc: TestService;
let app: App;
let creds: Awaited<ReturnType<typeof appWithWallet>>['creds'];
let appWalletKey: string;

before(async () => {
  svc = await startTestService({ LEDGER_FOLLOWER: 'off' }, { closeLedgersEveryMs: 200 });
  const setup = await appWithWallet(svc, { settings: { fundingMode: 'immediate' } });
  ({ app, creds } = setup);
  appWalletKey = setup.appWallet.publicKey;
});
after(async () => {
  await svc?.stop();
});

async function setPolicy(patch: Partial<FeePolicy>): Promise<void> {
  await saveFeePolicy(svc.deps.db, {
    appId: app.id,
    policy: { ...DEFAULT_FEE_POLICY, ...patch },
    actor: SYSTEM_ACTOR,
    at: new Date(),
  });
}

/** A signed-in user with a funded wallet. */
async function fundedUser(): Promise<UserClient> {
  const user = await signInUser(svc, creds);
  assert.equal(user.signIn.wallet.funded, true, 'funded at sign-in');
  return user;
}

const pay = (amount = '1', destination = appWalletKey) => ({
  operation: { type: 'payment', destination, asset: 'native', amount },
});

/** Fee-bumps the gas wallet signed for the user's own transactions (activations are the funding flow's). */
async function feeBumpsSigned(user: UserClient): Promise<number> {
  const rows = await svc.deps
    .db('transactions')
    .where({ user_id: user.userId })
    .whereNot({ origin: 'activation' })
    .whereNotNull('envelope_xdr')
    .count<{ count: string }[]>('* as count');
  return Number(rows[0]!.count);
}

describe('submission reaches the chain once', () => {
  test('50 parallel submissions of one signed XDR (no key): signed and sent once, every answer names the same hash', async () => {
    await setPolicy({});
    const user = await fundedUser();
    const signedXdr = await signedPayment(user);
    const gw = gatewayOf(svc);
    const seqBefore = BigInt((await gw.loadAccount(user.signIn.wallet.publicKey))!.sequence);
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => user.rawCall('POST', '/v1/tx/submit', { body: { signedXdr } })),
    );
    const ok = answers.filter((a) => a.status === 200);
    assert.ok(ok.length >= 1, answers.map((a) => a.status).join(','));
    for (const a of answers) assert.ok([200, 409].includes(a.status), `${a.status} ${a.text}`);
    assert.equal(new Set(ok.map((a) => a.body.content.hash)).size, 1);
    assert.equal(await feeBumpsSigned(user), 1, 'one fee-bump signed');
    await waitForSequence(user, seqBefore + 1n);
  });

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

describe('signed XDR checks', () => {
  test('a transaction of another account, a fee-bump, garbage, or one not signed by the wallet: 400 TX_INVALID_SIGNED_XDR', async () => {
    const user = await fundedUser();
    const gw = gatewayOf(svc);
    const stranger = Keypair.random();
    const foreign = new TransactionBuilder(new Account(stranger.publicKey(), '1'), {
      fee: '100',
      networkPassphrase: gw.networkPassphrase,
    })
      .addOperation(Operation.payment({ destination: appWalletKey, asset: Asset.native(), amount: '1' }))
      .setTimeout(60)
      .build();
    foreign.sign(stranger);
    const unsignedOwn = await buildPaymentXdr(user);
    for (const signedXdr of [foreign.toXDR(), 'AAAA', unsignedOwn]) {
      const res = await user.call('submitTransaction', 'POST', '/v1/tx/submit', { body: { signedXdr } });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.code, 'TX_INVALID_SIGNED_XDR');
    }
    const signedOwn = await signedPayment(user);
    const bump = TransactionBuilder.buildFeeBumpTransaction(
      stranger,
      '200',
      TransactionBuilder.fromXDR(signedOwn, gw.networkPassphrase) as any,
      gw.networkPassphrase,
    );
    const res = await user.call('submitTransaction', 'POST', '/v1/tx/submit', { body: { signedXdr: bump.toXDR() } });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'TX_INVALID_SIGNED_XDR');
  });

  test("signing refuses another user's transaction id and setOptions that would hand over the wallet", async () => {
    const alice = await fundedUser();
    const bob = await fundedUser();
    const built = await alice.call('buildTransaction', 'POST', '/v1/tx/build', { body: pay('1') });
    const other = await bob.call('signTransaction', 'POST', '/v1/tx/sign', { body: { txId: built.body.content.txId } });
    assert.equal(other.status, 404);
    assert.equal(other.body.code, 'TX_NOT_FOUND');
    const takeover = await unsignedOps(bob, [
      Operation.setOptions({ signer: { ed25519PublicKey: Keypair.random().publicKey(), weight: 1 } }),
    ]);
    const refused = await bob.call('signTransaction', 'POST', '/v1/tx/sign', { body: { unsignedXdr: takeover } });
    assert.equal(refused.status, 422);
    assert.equal(refused.body.code, 'TX_UNSUPPORTED_OPERATION');
  });

  test('a payment that fails on the ledger answers 422 TX_SUBMIT_FAILED with resultCode and is FAILED in history', async () => {
    await setPolicy({});
    const user = await fundedUser();
    const res = await user.rawCall('POST', '/v1/tx/run', { body: pay('1000') });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.code, 'TX_SUBMIT_FAILED');
    assert.equal(res.body.resultCode, 'op_underfunded');
    const history = await user.call('getTxHistory', 'GET', '/v1/tx/history');
    const failed = history.body.content.records.find((r: any) => r.status === 'FAILED');
    assert.equal(failed.resultCode, 'op_underfunded');
  });
});

// --- helpers ---

async function topUp(user: UserClient, amount: string): Promise<void> {
  const gw = gatewayOf(svc);
  const funder = Keypair.random();
  await gw.fundWithFriendbot(funder.publicKey());
  const account = (await gw.loadAccount(funder.publicKey()))!;
  const tx = new TransactionBuilder(new Account(funder.publicKey(), account.sequence), {
    fee: '100',
    networkPassphrase: gw.networkPassphrase,
  })
    .addOperation(Operation.payment({ destination: user.signIn.wallet.publicKey, asset: Asset.native(), amount }))
    .setTimeout(60)
    .build();
  tx.sign(funder);
  await gw.submitAndConfirm(tx);
}

async function waitForSequence(user: UserClient, sequence: bigint): Promise<void> {
  const gw = gatewayOf(svc);
  for (let i = 0; i < 100; i++) {
    if (BigInt((await gw.loadAccount(user.signIn.wallet.publicKey))!.sequence) === sequence) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(
    BigInt((await gw.loadAccount(user.signIn.wallet.publicKey))!.sequence),
    sequence,
    'the wallet sequence advanced exactly once',
  );
}

async function unsignedOps(user: UserClient, ops: ReturnType<typeof Operation.payment>[]): Promise<string> {
  const gw = gatewayOf(svc);
  const account = (await gw.loadAccount(user.signIn.wallet.publicKey))!;
  const builder = new TransactionBuilder(new Account(user.signIn.wallet.publicKey, account.sequence), {
    fee: '100',
    networkPassphrase: gw.networkPassphrase,
  });
  for (const op of ops) builder.addOperation(op);
  return builder.setTimeout(60).build().toXDR();
}

async function signOps(user: UserClient, ops: ReturnType<typeof Operation.payment>[]): Promise<string> {
  const signed = await user.call('signTransaction', 'POST', '/v1/tx/sign', {
    body: { unsignedXdr: await unsignedOps(user, ops) },
  });
  assert.equal(signed.status, 200, signed.text);
  return signed.body.content.signedXdr;
}

async function submitOps(user: UserClient, ops: ReturnType<typeof Operation.payment>[]) {
  return user.call('submitTransaction', 'POST', '/v1/tx/submit', { body: { signedXdr: await signOps(user, ops) } });
}

async function buildPaymentXdr(user: UserClient): Promise<string> {
  const built = await user.call('buildTransaction', 'POST', '/v1/tx/build', { body: pay('1') });
  assert.equal(built.status, 201, built.text);
  return built.body.content.unsignedXdr;
}

async function signedPayment(user: UserClient): Promise<string> {
  await topUp(user, '2');
  const built = await user.call('buildTransaction', 'POST', '/v1/tx/build', { body: pay('1') });
  assert.equal(built.status, 201, built.text);
  const signed = await user.call('signTransaction', 'POST', '/v1/tx/sign', { body: { txId: built.body.content.txId } });
  assert.equal(signed.status, 200, signed.text);
  return signed.body.content.signedXdr;
}
