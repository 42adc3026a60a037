// Localnet under load, through the stock SDK (rpc.Server): with a ledger of 2 operations (a queue of 4), a full queue
// refuses a bid that does not beat its lowest rates with txINSUFFICIENT_FEE naming the fee that would, a better bid
// evicts them (banned, never applied), sets take the best rates first and charge the lowest of them, and
// getFeeStats reports the fees charged.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Asset,
  type FeeBumpTransaction,
  type Keypair,
  Operation,
  type Transaction,
  TransactionBuilder,
  rpc,
} from '@stellar/stellar-sdk';
import { build, newAccounts, txCode, txHash, type TestNet, startTestLocalnet } from '../support/localnet';

const LEDGER_OPS = 2;

/** Accounts created two per ledger (a ledger holds 2 operations). */
async function accounts(net: TestNet, n: number): Promise<Keypair[]> {
  const out: Keypair[] = [];
  while (out.length < n) out.push(...(await newAccounts(net, Math.min(LEDGER_OPS, n - out.length), '100')));
  return out;
}

/** A 1-operation payment to root, bidding `fee` per operation. */
function pay(net: TestNet, from: Keypair, fee: number, sequence?: string): Promise<Transaction> {
  return build(
    net,
    from,
    [Operation.payment({ destination: net.root.publicKey(), asset: Asset.native(), amount: '1' })],
    {
      fee,
      ...(sequence ? { sequence } : {}),
    },
  );
}

async function send(net: TestNet, tx: Transaction | FeeBumpTransaction): Promise<rpc.Api.SendTransactionResponse> {
  return net.server.sendTransaction(tx);
}

async function pending(net: TestNet, tx: Transaction | FeeBumpTransaction): Promise<void> {
  const sent = await send(net, tx);
  assert.equal(sent.status, 'PENDING', `${sent.status} ${sent.errorResult ? txCode(sent.errorResult) : ''}`);
}

/** Closes ledgers until the queue is empty. */
async function drain(net: TestNet): Promise<void> {
  while (net.localnet.engine.pendingCount() > 0) await net.localnet.closeLedger();
}

async function applied(net: TestNet, tx: Transaction | FeeBumpTransaction) {
  const got = await net.server.getTransaction(txHash(tx));
  assert.equal(got.status, rpc.Api.GetTransactionStatus.SUCCESS, `${txHash(tx)}: ${got.status}`);
  return got;
}

describe('localnet under load: surge pricing through rpc.Server', () => {
  let net: TestNet;
  before(async () => {
    net = await startTestLocalnet({ engineConfig: { maxTxSetSize: LEDGER_OPS } });
  });
  after(() => net?.stop());

  test('full queue: a fee-bump bidding no more than the lowest rate gets ERROR txINSUFFICIENT_FEE with the fee it needs; paying it evicts the lowest, which are banned and never applied', async () => {
    const [a, b, c, d, wallet, gas] = await accounts(net, 6);
    const queued = [await pay(net, a!, 100), await pay(net, b!, 100), await pay(net, c!, 100), await pay(net, d!, 100)];
    for (const tx of queued) await pending(net, tx);

    // The service's shape: the wallet's 1-operation transaction, fee-bumped by the gas account at 100 per operation
    // (outer fee 100 x 2). It must beat 100 per operation over its 2 operations: floor(100 x 2 / 1) + 1 = 201.
    const inner = await pay(net, wallet!, 100);
    const low = TransactionBuilder.buildFeeBumpTransaction(gas!, '100', inner, net.passphrase);
    low.sign(gas!);
    const refused = await send(net, low);
    assert.equal(refused.status, 'ERROR');
    assert.equal(txCode(refused.errorResult!), 'txInsufficientFee');
    assert.equal(refused.errorResult!.feeCharged, 201n);
    // The refused envelope is banned: sending it again is TRY_AGAIN_LATER, not another ERROR.
    assert.equal((await send(net, low)).status, 'TRY_AGAIN_LATER');

    // A new fee-bump of the same inner transaction paying at least that fee (101 x 2 = 202) gets in...
    const better = TransactionBuilder.buildFeeBumpTransaction(gas!, '101', inner, net.passphrase);
    better.sign(gas!);
    await pending(net, better);
    // ...evicting the two lowest-rate transactions it needs room for (of equal rates, the latest arrivals: d, c).
    for (const evicted of [queued[3]!, queued[2]!]) {
      assert.equal((await send(net, evicted)).status, 'TRY_AGAIN_LATER');
    }
    assert.equal((await send(net, queued[1]!)).status, 'DUPLICATE');

    await drain(net);
    for (const evicted of [queued[3]!, queued[2]!]) {
      assert.equal((await net.server.getTransaction(txHash(evicted))).status, rpc.Api.GetTransactionStatus.NOT_FOUND);
    }
    // The fee-bump filled the first ledger alone (2 operations), charged its own rate: 101 x 2.
    const bumped = await applied(net, better);
    assert.equal(bumped.resultXdr.feeCharged, 202n);
    const [first, second] = [await applied(net, queued[0]!), await applied(net, queued[1]!)];
    assert.equal(first.ledger, bumped.ledger + 1);
    assert.equal(second.ledger, bumped.ledger + 1);
    assert.equal(first.resultXdr.feeCharged, 100n);
  });

  test('a surge-priced set takes the best rates first and charges them all the lowest; one account keeps its sequence order', async () => {
    const [a, b, c, d] = await accounts(net, 4);
    const seqA = (await net.server.getAccount(a!.publicKey())).sequenceNumber();
    const txs = [await pay(net, a!, 100), await pay(net, b!, 400), await pay(net, c!, 200), await pay(net, d!, 300)];
    for (const tx of txs) await pending(net, tx);
    // a's next sequence number cannot overtake its first transaction, however much it bids.
    const aNext = await pay(net, a!, 5000, (BigInt(seqA) + 1n).toString());
    assert.equal((await send(net, aNext)).status, 'TRY_AGAIN_LATER');

    await net.localnet.closeLedger();
    const [best, second] = [await applied(net, txs[1]!), await applied(net, txs[3]!)];
    assert.deepEqual([best.applicationOrder, second.applicationOrder, second.ledger], [1, 2, best.ledger]);
    // Both pay 300 per operation (d's bid, the lowest that made it in); b bid 400.
    assert.deepEqual([best.resultXdr.feeCharged, second.resultXdr.feeCharged], [300n, 300n]);
    // The surge fee is the baseFee of the set's classic component; the header keeps the network's 100.
    const ledgers = await net.server.getLedgers({ startLedger: best.ledger, pagination: { limit: 1 } });
    const meta = ledgers.ledgers[0]!.metadataXdr;
    assert.ok(meta.type === 'v2');
    assert.equal(meta.v2.ledgerHeader.header.baseFee, 100);
    const classic = meta.v2.txSet.v1TxSet.phases[0]!;
    assert.ok(classic.type === 'v0Components');
    assert.equal(classic.v0Components[0]!.txsMaybeDiscountedFee.baseFee, 300n);

    // The rest fits the next ledger: arrival order, the base fee.
    await net.localnet.closeLedger();
    const [first, third] = [await applied(net, txs[0]!), await applied(net, txs[2]!)];
    assert.deepEqual([first.applicationOrder, third.applicationOrder, first.resultXdr.feeCharged], [1, 2, 100n]);
    // Once its first transaction is in, a's next one is accepted.
    await pending(net, aNext);
    await drain(net);
    assert.equal((await applied(net, aNext)).resultXdr.feeCharged, 100n);
  });
});

describe('localnet under load: getFeeStats reports the fees charged', () => {
  let net: TestNet;
  before(async () => {
    net = await startTestLocalnet({ engineConfig: { maxTxSetSize: LEDGER_OPS } });
  });
  after(() => net?.stop());

  test('a calm ledger reports the base fee whatever the bids; surge-priced ledgers raise p50 and max', async () => {
    const [calm1, calm2, ...bidders] = await accounts(net, 10);
    // Push the account creations out of the 10-ledger window.
    for (let i = 0; i < 10; i++) await net.localnet.closeLedger();

    await pending(net, await pay(net, calm1!, 1000));
    await pending(net, await pay(net, calm2!, 1000));
    await net.localnet.closeLedger();
    const before = await net.server.getFeeStats();
    assert.deepEqual(
      [before.inclusionFee.p50, before.inclusionFee.max, before.inclusionFee.transactionCount],
      ['100', '100', '2'],
    );

    // Three rounds that keep the queue full: each ledger takes the two best bids at the lower of them.
    const rounds = [
      [1000, 1200, 1500, 900],
      [1100, 1300],
      [950, 980],
    ];
    let next = 0;
    for (const bids of rounds) {
      for (const fee of bids) await pending(net, await pay(net, bidders[next++]!, fee));
      await net.localnet.closeLedger();
    }
    await drain(net);
    // Charged: 1200 x 2 (1500, 1200), 1100 x 2 (1300, 1100), 980 x 2 (1000, 980), then 100 x 2 (950, 900 fit).
    const after = await net.server.getFeeStats();
    assert.deepEqual(
      [after.inclusionFee.min, after.inclusionFee.p50, after.inclusionFee.max, after.inclusionFee.transactionCount],
      ['100', '980', '1200', '10'],
    );
  });
});
