// A congested network (issue 22): localnet's transaction queue full, as stellar-core's is under surge pricing, with a
// ledger of 10 operations so that a few bids fill it. runTransaction's fee-bump at the product's fee is refused with
// txINSUFFICIENT_FEE naming the fee that would get in; the service wraps the same inner transaction again at that fee
// (only the gas wallet signs again) and the payment goes through, charged what the surge-priced ledger charged. When
// the network needs more than the app's fee policy allows, the answer is TX_POLICY_MAX_FEE_EXCEEDED saying what it
// needed, and nothing is sent or charged. A payment handed to the confirmation worker (it waited for its turn behind
// the wallet's previous one) meets the same on its first send: the worker wraps it again at the fee asked for. The
// bank check holds after each. The worker's passes are run by the test (WORKERS=off), between ledger closes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Asset, FeeBumpTransaction, Keypair, Memo, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { SYSTEM_ACTOR } from '../../src/domain/audit/auditLog';
import { DEFAULT_FEE_POLICY, saveFeePolicy } from '../../src/domain/feePolicy/policy';
import { fromStroops, toStroops } from '../../src/domain/money/amounts';
import { createStellarGateway, type StellarGateway } from '../../src/infra/stellar/gateway';
import { startLocalnet, type Localnet } from '../../src/localnet/index';
import { bankCheck, payingUsers, xlmPayment } from '../support/bankCheck';
import { freshDatabase, type TestDatabase } from '../support/database';
import { closeLedgersEvery, createAccountWith, eventually, untilFunded } from '../support/funding';
import { signInUser } from '../support/users';
import { startTestService, type TestService } from '../support/service';
import { confirmDue } from '../../src/domain/transactions/confirmation';
import type { UserClient } from '../support/users';

/**
 * Operations per ledger: the queue holds two ledgers' worth (20), so four 5-operation bids fill it. (A ledger takes a
 * sponsored activation, 4 operations with its fee-bump, before the bids come.)
 */
const LEDGER_OPS = 10;
const BIDDERS = 4;
const BID_OPS = 5;

describe('runTransaction on a congested network', () => {
  let net: Localnet;
  let chain: StellarGateway;
  let database: TestDatabase;
  let svc: TestService;
  let user: UserClient;
  let appId: string;
  let destination: string;
  const bidders = Array.from({ length: BIDDERS }, () => Keypair.random());
  /** Others, to fill the queue again while the first bidders' transactions are still in it. */
  const moreBidders = Array.from({ length: BIDDERS }, () => Keypair.random());
  let bids = 0;

  before(async () => {
    net = await startLocalnet({ ledgerCloseMs: 'manual', engineConfig: { maxTxSetSize: LEDGER_OPS } });
    chain = createStellarGateway({ network: 'testnet', rpcUrl: net.rpcUrl, networkPassphrase: net.networkPassphrase });
    database = await freshDatabase();
    // The run answers once the RPC took the payment; the test closes the ledgers, the worker confirms.
    svc = await startTestService(
      { STELLAR_TESTNET_RPC_URL: net.rpcUrl, TX_CONFIRM_WAIT_MS: '0', WORKERS: 'off' },
      { database },
    );
    const stop = closeLedgersEvery({ localnet: net });
    try {
      let users: UserClient[];
      ({ appId, users, destination } = await payingUsers(svc, 1));
      user = users[0]!;
      for (const b of [...bidders, ...moreBidders]) await createAccountWith(svc, b.publicKey(), '100');
    } finally {
      stop();
    }
  });
  after(async () => {
    await svc?.stop();
    await net?.stop();
    await database?.drop();
  });

  /** Fills the queue: every bidder sends a BID_OPS-operation transaction at `rateStroops` per operation. */
  async function fillQueue(rateStroops: bigint, from = bidders): Promise<void> {
    for (const b of from) {
      const account = (await chain.loadAccount(b.publicKey()))!;
      const tx = new TransactionBuilder(new Account(b.publicKey(), account.sequence), {
        fee: rateStroops.toString(),
        networkPassphrase: net.networkPassphrase,
      })
        .setTimeout(60)
        // Never the envelope of an earlier bid: an evicted one is banned for a while, and its account's number unmoved.
        .addMemo(Memo.text(`bid ${++bids}`));
      for (let i = 0; i < BID_OPS; i++)
        tx.addOperation(Operation.payment({ destination, asset: Asset.native(), amount: '0.0000001' }));
      const built = tx.build();
      built.sign(b);
      await chain.submit(built);
    }
    assert.equal(net.engine.pendingCount(), BIDDERS, 'the queue holds the bids, and is full');
  }

  /** Closes ledgers and runs the confirmation worker's passes until every record is settled and the queue empty. */
  async function closeUntilSettled(): Promise<void> {
    await eventually(
      'every record settled, the queue empty',
      async () => {
        await net.closeLedger();
        await confirmDue(svc.deps);
        const open = await svc.deps.db('transactions').where({ app_id: appId, stage: 'submitted' }).count();
        return Number(open[0]!.count) === 0 && net.engine.pendingCount() === 0;
      },
      30_000,
    );
  }

  test('refused at the product fee, sent again at the fee the network asked for, within the policy: applied', async () => {
    await fillQueue(1000n);
    const answer = await user.rawCall('POST', '/v1/tx/run', { body: xlmPayment(destination, 1111) });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const outcome = answer.body.content;
    assert.equal(outcome.status, 'pending');
    // The bid to beat is 1,000 stroops per operation; a fee-bump of one payment counts 2 operations.
    const bidFee = toStroops(outcome.feeXlm);
    assert.ok(bidFee > 2000n, `the fee was raised above the lowest queued rate: ${outcome.feeXlm}`);
    assert.ok(bidFee <= DEFAULT_FEE_POLICY.maxFeeStroops);
    await closeUntilSettled();
    const record = await svc.deps.db('transactions').where({ id: outcome.txId }).first();
    assert.equal(record.status, 'SUCCESS');
    const details = (await chain.transactionDetails(record.hash))!;
    assert.equal(details.feeBump, true);
    assert.equal(BigInt(record.fee_stroops), details.feeChargedStroops, 'the fee recorded is the fee charged');
    assert.ok(details.feeChargedStroops <= bidFee, 'a surge-priced ledger never charges more than the bid');
    // Only the gas wallet signed again: one user signature, the inner transaction unchanged.
    assert.equal(
      (await svc.deps.db('audit_log').where({ action: 'key.decrypt', purpose: 'tx.sign' }).count())[0]!.count,
      '1',
    );
    await bankCheck(svc.deps.db, chain, appId);
  });

  test('handed to the worker behind the wallet’s previous payment, refused at its first send: wrapped again at the fee asked for', async () => {
    await fillQueue(1000n);
    const first = await user.rawCall('POST', '/v1/tx/run', { body: xlmPayment(destination, 3333) });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    // Not its turn (the first is not in a ledger yet): the worker will send it.
    const second = await user.rawCall('POST', '/v1/tx/run', { body: xlmPayment(destination, 4444) });
    assert.equal(second.status, 200, JSON.stringify(second.body));
    assert.equal(second.body.content.status, 'pending');
    const productFee = toStroops(second.body.content.feeXlm);
    await net.closeLedger(); // the first (the best bid) applies; the queue is full again with better bids
    await fillQueue(2000n, moreBidders);
    // The worker's passes: the first settles; the second is sent in its turn, refused, and wrapped again, until the
    // network takes it (a first raise beats the rate evicted last, the next the queue's lowest).
    let raised: { stage: string; fee_stroops: string; hash: string; sent_at: Date | null } | undefined;
    await eventually('the worker sent the second at a raised fee', async () => {
      await confirmDue(svc.deps);
      raised = await svc.deps.db('transactions').where({ id: second.body.content.txId }).first();
      return raised!.sent_at !== null || raised!.stage !== 'submitted';
    });
    assert.equal(raised!.stage, 'submitted');
    assert.ok(BigInt(raised!.fee_stroops) > 2n * 2000n, `raised above the queue's lowest rate: ${raised!.fee_stroops}`);
    assert.ok(BigInt(raised!.fee_stroops) > productFee);
    await closeUntilSettled();
    const settled = await svc.deps.db('transactions').where({ id: second.body.content.txId }).first();
    assert.equal(settled.status, 'SUCCESS', JSON.stringify(settled));
    assert.equal(settled.hash, raised!.hash, 'the envelope the worker recorded is the one applied');
    await bankCheck(svc.deps.db, chain, appId);
  });

  test('a user signing in while the network is congested: the activation goes again at the fee asked for; funded once', async () => {
    await fillQueue(1000n);
    const signingIn = signInUser(svc, { publishableKey: user.publishableKey });
    await eventually('the activation was refused, raised and queued', async () => {
      const raised = await svc.deps.db('wallet_activations').where({ app_id: appId }).where('attempts', '>=', 2);
      return raised.length === 1 && net.engine.pendingCount() === BIDDERS;
    });
    const stop = closeLedgersEvery({ localnet: net });
    let walletId: string;
    try {
      walletId = (await signingIn).signIn.wallet.walletId;
      await untilFunded(svc, walletId);
    } finally {
      stop();
    }
    const activation = await svc.deps.db('transactions').where({ origin: 'activation', wallet_id: walletId }).first();
    const details = (await chain.transactionDetails(activation.hash))!;
    assert.equal(details.status, 'SUCCESS');
    assert.equal(BigInt(activation.fee_stroops), details.feeChargedStroops);
    const envelope = TransactionBuilder.fromXDR(details.envelopeXdr, net.networkPassphrase) as FeeBumpTransaction;
    assert.ok(BigInt(envelope.fee) > 2n * 1000n, `the bid beat the queue's rate: ${envelope.fee}`);
    await closeUntilSettled();
    await bankCheck(svc.deps.db, chain, appId);
  });

  test('the network needs more than the policy allows: TX_POLICY_MAX_FEE_EXCEEDED saying so, nothing sent', async () => {
    const maxFeeStroops = 100_000n; // 0.01 XLM, the lowest maximum a policy may set
    await saveFeePolicy(svc.deps.db, {
      appId,
      policy: { ...DEFAULT_FEE_POLICY, maxFeeStroops },
      actor: SYSTEM_ACTOR,
      at: new Date(),
    });
    await fillQueue(60_000n); // beating 60,000 per operation costs over 120,000 for a 2-operation fee-bump
    const answer = await user.rawCall('POST', '/v1/tx/run', { body: xlmPayment(destination, 2222) });
    assert.equal(answer.body.code, 'TX_POLICY_MAX_FEE_EXCEEDED', JSON.stringify(answer.body));
    assert.match(answer.body.message, /congested/);
    assert.match(answer.body.message, new RegExp(`maximum of ${fromStroops(maxFeeStroops)} XLM`));
    const record = await svc.deps
      .db('transactions')
      .where({ app_id: appId, amount: '0.0002222' })
      .first('stage', 'status', 'result_code', 'hash');
    assert.deepEqual(
      [record.stage, record.status, record.result_code],
      ['denied', 'FAILED', 'TX_POLICY_MAX_FEE_EXCEEDED'],
    );
    await closeUntilSettled();
    assert.equal(await chain.transactionDetails(record.hash), undefined, 'nothing of it reached a ledger');
    await bankCheck(svc.deps.db, chain, appId);
  });

  test('the same for a payment the worker sends in its turn: denied, audited, nothing sent', async () => {
    // The policy's maximum is 0.01 XLM since the test before. The first payment is queued on a calm network; the
    // second waits for its turn, and by then the network asks for more than the maximum.
    const first = await user.rawCall('POST', '/v1/tx/run', { body: xlmPayment(destination, 5555) });
    const second = await user.rawCall('POST', '/v1/tx/run', { body: xlmPayment(destination, 6666) });
    assert.deepEqual([first.body.content?.status, second.body.content?.status], ['pending', 'pending']);
    await net.closeLedger(); // the first applies
    await fillQueue(60_000n, moreBidders);
    let record: { stage: string; result_code: string | null; hash: string } | undefined;
    await eventually('the worker judged the second', async () => {
      await confirmDue(svc.deps);
      record = await svc.deps.db('transactions').where({ id: second.body.content.txId }).first();
      return record!.stage !== 'submitted';
    });
    assert.deepEqual([record!.stage, record!.result_code], ['denied', 'TX_POLICY_MAX_FEE_EXCEEDED']);
    const audit = await svc.deps
      .db('audit_log')
      .where({ action: 'tx.policy_denied', purpose: 'TX_POLICY_MAX_FEE_EXCEEDED' })
      .orderBy('created_at', 'desc')
      .first();
    assert.equal(audit?.actor_type, 'system', JSON.stringify(audit));
    await closeUntilSettled();
    assert.equal(await chain.transactionDetails(record!.hash), undefined, 'nothing of it reached a ledger');
    await bankCheck(svc.deps.db, chain, appId);
  });
});
