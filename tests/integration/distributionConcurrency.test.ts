// Distribution claims at once across two service instances on one PostgreSQL database and one chain (a localnet both
// reach over RPC): 168 claims from 28 users, split between the instances, against a rule with an allocation of 40
// and a rate limit of 2 per user. Exactly 40 are paid, no user gets more than 2, and the distribution wallet's USDC
// on the ledger moves by exactly 40 x the amount (the fees are XLM, paid by the gas wallet). The CI-sized version of
// issue 19's 1,000 claims.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Account, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { SYSTEM_ACTOR } from '../../src/domain/audit/auditLog';
import { fromStroops } from '../../src/domain/money/amounts';
import { withWalletKeypair } from '../../src/domain/wallets/custody';
import { parseAsset } from '../../src/infra/stellar/gateway';
import { findApp } from '../../src/domain/apps/store';
import { updateAppSettings } from '../../src/domain/apps/store';
import { runClaimRecovery } from '../../src/domain/distribution/claims';
import { createRule } from '../../src/domain/distribution/rules';
import { issueDemoUsdc } from '../../src/domain/treasury/demoUsdc';
import { appWalletFor } from '../../src/domain/wallets/treasuryWallets';
import { startLocalnet, type Localnet } from '../../src/localnet/index';
import { freshDatabase, type TestDatabase } from '../support/database';
import { appWithWallet, closeLedgersEvery, eventually, gatewayOf, untilFunded } from '../support/funding';
import { sendWithProof } from '../support/operators';
import { startTestService, type TestService } from '../support/service';
import { signInUser, type UserClient } from '../support/users';

// 28 users: one network may ask for at most 30 sign-in codes per app per hour (startEmailSignIn's abuse limit).
const USERS = 28;
const CLAIMS_PER_USER = 6;
const ALLOCATION = 40;
const PER_USER = 2;

describe('distribution claims at once across two instances', () => {
  let net: Localnet;
  let database: TestDatabase;
  let dataDir: string;
  let a: TestService;
  let b: TestService;
  let stopClosing: () => void;

  before(async () => {
    net = await startLocalnet({ ledgerCloseMs: 'manual' });
    stopClosing = closeLedgersEvery({ localnet: net }, 200);
    database = await freshDatabase();
    // One deployment: the same database, chain, service secret and local master key (the data directory).
    dataDir = mkdtempSync(join(tmpdir(), 'onboard-distribution-shared-'));
    const env = { STELLAR_TESTNET_RPC_URL: net.rpcUrl, ONBOARD_DATA_DIR: dataDir, ACTIVATION_CHANNELS: '4' };
    a = await startTestService(env, { database });
    b = await startTestService(env, { database });
  });
  after(async () => {
    stopClosing?.();
    await a?.stop();
    await b?.stop();
    await net?.stop();
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test(`${USERS * CLAIMS_PER_USER} claims: exactly ${ALLOCATION} paid, at most ${PER_USER} per user, the ledger moves by exactly that`, async () => {
    const setup = await appWithWallet(a, { settings: { fundingMode: 'immediate' } });
    const { asset: usdc } = await issueDemoUsdc(a.deps, setup.app);
    const app = (await findApp(a.deps.db, setup.app.id))!;
    assert.ok(app.assets.includes(usdc));
    await updateAppSettings(a.deps.db, app.id, { fundingMode: 'immediate' });
    // Users activated with the USDC trustline (the app has it), in batches.
    const users: UserClient[] = [];
    for (let i = 0; i < USERS; i += 20) {
      users.push(
        ...(await Promise.all(Array.from({ length: Math.min(20, USERS - i) }, () => signInUser(a, setup.creds)))),
      );
    }
    for (const u of users) await untilFunded(a, u.signIn.wallet.walletId);
    const rule = await createRule(
      a.deps,
      app,
      {
        name: 'Launch reward',
        asset: usdc,
        amountPerClaim: '2.5',
        totalAllocation: ALLOCATION,
        rateLimit: { maxClaims: PER_USER, periodSeconds: 3600 },
      },
      { actor: SYSTEM_ACTOR, at: new Date() },
    );
    const distribution = (await appWalletFor(a.deps.db, app.id, app.network, 'distribution'))!;
    const [lineBefore] = await gatewayOf(a).trustlines(distribution.publicKey, [usdc]);

    // Every user claims CLAIMS_PER_USER times at once, alternating instances; the b-side calls keep their own nonce.
    const bState = new Map<string, { nonce?: string }>();
    const answers = await Promise.all(
      users.flatMap((user, u) =>
        Array.from({ length: CLAIMS_PER_USER }, (_, c) => {
          const onB = (u + c) % 2 === 1;
          const path = `/v1/distribution/rules/${rule.id}/claim`;
          if (!onB) return user.rawCall('POST', path);
          const state = bState.get(user.userId) ?? {};
          bState.set(user.userId, state);
          return sendWithProof(b.url, user.key, state, 'POST', path, {
            headers: { 'x-service-api-key': user.publishableKey },
            accessToken: user.accessToken,
          });
        }),
      ),
    );
    const byStatus = new Map<string, number>();
    for (const r of answers) {
      const key = `${r.status} ${r.body?.code ?? ''}`;
      byStatus.set(key, (byStatus.get(key) ?? 0) + 1);
    }
    const summary = JSON.stringify([...byStatus]);
    const paid = answers.filter((r) => r.status === 200);
    assert.equal(paid.length, ALLOCATION, summary);
    assert.ok(
      answers
        .filter((r) => r.status !== 200)
        .every((r) => ['DISTRIBUTION_RULE_EXHAUSTED', 'DISTRIBUTION_RATE_LIMIT_EXCEEDED'].includes(r.body?.code)),
      summary,
    );
    assert.ok(
      paid.every((r) => r.body.content.status === 'SUCCESS'),
      'every paid claim confirmed within its request',
    );

    const rows = await a.deps.db('distribution_claims').where({ rule_id: rule.id });
    assert.equal(rows.filter((r) => r.status === 'paid').length, ALLOCATION);
    assert.equal(rows.filter((r) => r.status !== 'paid').length, 0, 'no claim left reserved, submitted or released');
    const perUser = new Map<string, number>();
    for (const r of rows) perUser.set(r.user_id, (perUser.get(r.user_id) ?? 0) + 1);
    assert.ok(Math.max(...perUser.values()) <= PER_USER, JSON.stringify([...perUser]));
    const counted = await a.deps.db('distribution_rules').where({ id: rule.id }).first('claimed_count');
    assert.equal(counted.claimed_count, ALLOCATION);

    // The chain agrees: the distribution wallet paid exactly ALLOCATION x 2.5 USDC, each user what their claims say.
    const [lineAfter] = await gatewayOf(a).trustlines(distribution.publicKey, [usdc]);
    assert.equal(lineBefore!.balanceStroops - lineAfter!.balanceStroops, BigInt(ALLOCATION) * 25_000_000n);
    for (const user of users) {
      const [line] = await gatewayOf(b).trustlines(user.signIn.wallet.publicKey, [usdc]);
      assert.equal(line?.balanceStroops ?? 0n, BigInt(perUser.get(user.userId) ?? 0) * 25_000_000n, user.userId);
    }
    // Batched: far fewer transactions than claims.
    const hashes = new Set(rows.map((r) => r.tx_hash));
    assert.ok(hashes.size < ALLOCATION, `${hashes.size} transactions for ${ALLOCATION} claims`);
  });

  test('two payouts sent at once that the distribution wallet can cover only one of: one paid, the other fails in its ledger, is released, and its fee is recorded', async () => {
    const setup = await appWithWallet(a, { settings: { fundingMode: 'immediate' } });
    const { asset: usdc, issuer } = await issueDemoUsdc(a.deps, setup.app);
    const app = (await findApp(a.deps.db, setup.app.id))!;
    const user = await signInUser(a, setup.creds);
    await untilFunded(a, user.signIn.wallet.walletId);
    const distribution = (await appWalletFor(a.deps.db, app.id, app.network, 'distribution'))!;
    const rule = await createRule(
      a.deps,
      app,
      { name: 'Last one', asset: usdc, amountPerClaim: '1', rateLimit: { maxClaims: 2, periodSeconds: 3600 } },
      { actor: SYSTEM_ACTOR, at: new Date() },
    );
    // A first claim by someone else while ledgers close: the distribution wallet's channel accounts are created.
    const other = await signInUser(a, setup.creds);
    await untilFunded(a, other.signIn.wallet.walletId);
    const warmUp = await other.rawCall('POST', `/v1/distribution/rules/${rule.id}/claim`);
    assert.equal(warmUp.status, 200, warmUp.text);
    // Leave the distribution wallet exactly one claim's worth: the rest goes back to the issuer.
    const gw = gatewayOf(a);
    const [line] = await gw.trustlines(distribution.publicKey, [usdc]);
    const account = (await gw.loadAccount(distribution.publicKey))!;
    const drain = new TransactionBuilder(new Account(distribution.publicKey, account.sequence), {
      fee: '100',
      networkPassphrase: gw.networkPassphrase,
    })
      .addOperation(
        Operation.payment({
          destination: issuer.publicKey(),
          asset: parseAsset(usdc),
          amount: fromStroops(line!.balanceStroops - 10_000_000n),
        }),
      )
      .setTimeout(60)
      .build();
    await withWalletKeypair(a.deps, { walletId: distribution.id, purpose: 'test.drain', actor: SYSTEM_ACTOR }, (kp) =>
      drain.sign(kp),
    );
    await gw.submitAndConfirm(drain);
    // One user's two claims never share a transaction: two batches. No ledger closes until both are sent, so both
    // are checked against a balance of 1 USDC; then one ledger applies one and fails the other.
    const path = `/v1/distribution/rules/${rule.id}/claim`;
    stopClosing();
    const sending = Promise.all([user.rawCall('POST', path), user.rawCall('POST', path)]);
    try {
      await eventually('both payouts wait in the ledger queue', async () => net.engine.pendingCount() >= 2);
      await net.closeLedger();
    } finally {
      stopClosing = closeLedgersEvery({ localnet: net }, 200);
    }
    const answers = await sending;
    const statuses = answers.map((r) => `${r.status} ${r.body?.code ?? ''} ${r.body?.resultCode ?? ''}`.trim()).sort();
    assert.equal(answers.filter((r) => r.status === 200).length, 1, JSON.stringify(statuses));
    const failed = answers.find((r) => r.status !== 200)!;
    assert.deepEqual([failed.status, failed.body.code], [422, 'TX_SUBMIT_FAILED'], failed.text);
    const rows = await a.deps.db('distribution_claims').where({ rule_id: rule.id });
    assert.deepEqual(rows.map((r) => r.status).sort(), ['paid', 'paid', 'released']);
    assert.equal((await a.deps.db('distribution_rules').where({ id: rule.id }).first()).claimed_count, 2);
    const [userLine] = await gw.trustlines(user.signIn.wallet.publicKey, [usdc]);
    assert.equal(userLine!.balanceStroops, 10_000_000n, 'paid once');
    const released = rows.find((r) => r.status === 'released')!;
    // Both batches read a balance of 1 USDC before either applied: the second reached its ledger and failed there.
    assert.equal(released.failure_code, 'op_underfunded', JSON.stringify(released));
    const tx = await a.deps.db('transactions').where({ hash: released.tx_hash }).first();
    assert.deepEqual([tx?.status, tx?.origin, tx?.result_code], ['FAILED', 'distribution', 'op_underfunded']);
    assert.equal(
      BigInt(tx.fee_stroops),
      (await gw.transactionDetails(released.tx_hash))!.feeChargedStroops,
      'the fee the gas wallet paid for it is on the record',
    );

    // Had the sending process died before it could record that, the recovery pass records it from the chain.
    await a.deps.db('tx_history').where({ transaction_id: tx.id }).delete();
    await a.deps.db('transactions').where({ id: tx.id }).delete();
    await a.deps
      .db('distribution_claims')
      .where({ id: released.id })
      .update({ status: 'submitted', failure_code: null, updated_at: new Date(Date.now() - 3_600_000) });
    await a.deps.db('distribution_rules').where({ id: rule.id }).increment('claimed_count', 1);
    await runClaimRecovery(a.deps); // the service's own pass may come first: the outcome is the same
    const recovered = await a.deps.db('distribution_claims').where({ id: released.id }).first();
    assert.deepEqual([recovered.status, recovered.failure_code], ['released', 'op_underfunded']);
    assert.equal((await a.deps.db('distribution_rules').where({ id: rule.id }).first()).claimed_count, 2);
    const again = await a.deps.db('transactions').where({ hash: released.tx_hash }).first();
    assert.deepEqual([again?.status, again?.origin, again?.fee_stroops], ['FAILED', 'distribution', tx.fee_stroops]);
  });
});
