// The activation transaction: its shape (pure), and on the in-process localnet the spec's reserve rule (0/1/2/3
// assets lock 1/1.5/2/2.5 XLM in the funding wallet), the starting balance, batching, and all-or-nothing, wrapped in
// a fee-bump as the queue sends it: the gas wallet pays the fee, the funding wallet (or a channel) none.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Account,
  Keypair,
  Networks,
  Operation,
  TransactionBuilder,
  type FeeBumpTransaction,
  type Transaction,
} from '@stellar/stellar-sdk';
import { startLocalnet, type Localnet } from '../../localnet/index';
import { TransactionRejectedError } from '../../infra/stellar/errors';
import { createStellarGateway, minimumBalanceStroops, type StellarGateway } from '../../infra/stellar/gateway';
import { feeBumpFeeOf } from '../transactions/feeBump';
import {
  activationFeeStroops,
  buildActivationTransaction,
  reservePerWalletXlm,
  reserveStroops,
  sponsorCostStroops,
  type WalletActivation,
} from './activation';

const ISSUER = 'GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5';

describe('activation transaction (shape)', () => {
  const funding = Keypair.random().publicKey();
  const wallet = Keypair.random().publicKey();

  test('begin, create with 0, a trustline per asset, end, then the starting balance, with the right sources', () => {
    const tx = buildActivationTransaction({
      source: { publicKey: funding, sequence: '41' },
      sponsor: funding,
      activations: [{ publicKey: wallet, assets: [`USDC:${ISSUER}`, `EURC:${ISSUER}`], startingBalanceXlm: '2.5' }],
      networkPassphrase: Networks.TESTNET,
      feePerOperationStroops: 100,
      validUntil: 1_900_000_000,
    });
    assert.equal(tx.source, funding);
    assert.equal(tx.sequence, '42');
    assert.equal(tx.fee, String(6 * 100));
    assert.deepEqual(tx.timeBounds, { minTime: '0', maxTime: '1900000000' });
    const ops = tx.operations.map((op) => ({ type: op.type, source: op.source }));
    assert.deepEqual(ops, [
      { type: 'beginSponsoringFutureReserves', source: funding },
      { type: 'createAccount', source: funding },
      { type: 'changeTrust', source: wallet },
      { type: 'changeTrust', source: wallet },
      { type: 'endSponsoringFutureReserves', source: wallet },
      { type: 'payment', source: funding },
    ]);
    const create = tx.operations[1] as { startingBalance: string };
    assert.equal(create.startingBalance, '0.0000000');
  });

  test('no starting balance: no payment; no assets: no trustline', () => {
    const tx = buildActivationTransaction({
      source: { publicKey: funding, sequence: '1' },
      sponsor: funding,
      activations: [{ publicKey: wallet, assets: [], startingBalanceXlm: '0' }],
      networkPassphrase: Networks.TESTNET,
      feePerOperationStroops: 100,
      validUntil: 1_900_000_000,
    });
    assert.deepEqual(
      tx.operations.map((op) => op.type),
      ['beginSponsoringFutureReserves', 'createAccount', 'endSponsoringFutureReserves'],
    );
  });

  test('more than 100 operations do not fit in one transaction', () => {
    const activations = Array.from({ length: 26 }, () => ({
      publicKey: Keypair.random().publicKey(),
      assets: [`USDC:${ISSUER}`],
      startingBalanceXlm: '0',
    }));
    assert.throws(
      () =>
        buildActivationTransaction({
          source: { publicKey: funding, sequence: '1' },
          sponsor: funding,
          activations,
          networkPassphrase: Networks.TESTNET,
          feePerOperationStroops: 100,
          validUntil: 1,
        }),
      /104 operations/,
    );
  });

  test('reserve rule: 1 XLM + 0.5 XLM per asset; the sponsor also covers starting balances, never the fee', () => {
    assert.deepEqual(
      [0, 1, 2, 3].map((n) => reservePerWalletXlm(n)),
      ['1', '1.5', '2', '2.5'],
    );
    const activation: WalletActivation = { publicKey: wallet, assets: [`USDC:${ISSUER}`], startingBalanceXlm: '2' };
    assert.equal(sponsorCostStroops([activation], { baseReserveStroops: 5_000_000n }), 35_000_000n);
    assert.equal(sponsorCostStroops([activation, activation], { baseReserveStroops: 5_000_000n }), 70_000_000n);
  });

  test("the gas wallet's fee: the fee-bump's, one operation more than the batch at the same rate", () => {
    const activation: WalletActivation = { publicKey: wallet, assets: [`USDC:${ISSUER}`], startingBalanceXlm: '2' };
    assert.equal(activationFeeStroops([activation], 100), 6n * 100n);
    assert.equal(activationFeeStroops([activation, activation], 100), 11n * 100n);
    const tx = buildActivationTransaction({
      source: { publicKey: funding, sequence: '1' },
      sponsor: funding,
      activations: [activation, { ...activation, publicKey: Keypair.random().publicKey() }],
      networkPassphrase: Networks.TESTNET,
      feePerOperationStroops: 100,
      validUntil: 1,
    });
    assert.equal(
      feeBumpFeeOf(tx),
      activationFeeStroops([activation, activation], 100),
      'what the fee-bump of the batch declares',
    );
  });
});

describe('activation transaction (on the ledger)', () => {
  let net: Localnet;
  let gw: StellarGateway;
  let root: Keypair;
  let issuer: Keypair;
  const assets = () => ['AAA', 'BBB', 'CCC'].map((code) => `${code}:${issuer.publicKey()}`);

  before(async () => {
    net = await startLocalnet({ ledgerCloseMs: 'manual' });
    gw = createStellarGateway({
      network: 'testnet',
      rpcUrl: net.rpcUrl,
      networkPassphrase: net.networkPassphrase,
      confirmTimeoutMs: 5000,
    });
    root = Keypair.master(net.networkPassphrase);
    issuer = (await fundAccounts(['10']))[0]!;
  });
  after(() => net?.stop());

  /** Submits and closes ledgers until it is in one (one close 20 ms after sending raced the sending on a busy machine). */
  async function submitAndClose(tx: Parameters<StellarGateway['submitAndConfirm']>[0]) {
    const closer = setInterval(() => void net.closeLedger(), 50);
    try {
      return await gw.submitAndConfirm(tx);
    } finally {
      clearInterval(closer);
    }
  }

  async function fundAccounts(balances: string[]): Promise<Keypair[]> {
    const kps = balances.map(() => Keypair.random());
    const account = await gw.loadAccount(root.publicKey());
    const builder = new TransactionBuilder(new Account(root.publicKey(), account!.sequence), {
      fee: '100',
      networkPassphrase: net.networkPassphrase,
    });
    kps.forEach((kp, i) =>
      builder.addOperation(Operation.createAccount({ destination: kp.publicKey(), startingBalance: balances[i]! })),
    );
    const tx = builder.setTimeout(0).build();
    tx.sign(root);
    await submitAndClose(tx);
    return kps;
  }

  /** The activation as the queue sends it: signed by source, sponsor and wallets, fee-bumped by `gas`. */
  async function activate(
    funding: Keypair,
    wallets: { kp: Keypair; assets: string[]; startingBalanceXlm: string }[],
    opts: { source?: Keypair; gas: Keypair },
  ) {
    const source = opts.source ?? funding;
    const sourceAccount = await gw.loadAccount(source.publicKey());
    const tx = buildActivationTransaction({
      source: { publicKey: source.publicKey(), sequence: sourceAccount!.sequence },
      sponsor: funding.publicKey(),
      activations: wallets.map((w) => ({
        publicKey: w.kp.publicKey(),
        assets: w.assets,
        startingBalanceXlm: w.startingBalanceXlm,
      })),
      networkPassphrase: net.networkPassphrase,
      feePerOperationStroops: 100,
      validUntil: Math.floor(Date.now() / 1000) + 120,
    });
    tx.sign(...new Set([source, funding, ...wallets.map((w) => w.kp)]));
    return submitAndClose(bumped(tx, opts.gas));
  }

  function bumped(inner: Transaction, gas: Keypair): FeeBumpTransaction {
    const rate = feeBumpFeeOf(inner) / BigInt(inner.operations.length + 1);
    const bump = TransactionBuilder.buildFeeBumpTransaction(
      gas.publicKey(),
      rate.toString(),
      inner,
      net.networkPassphrase,
    );
    bump.sign(gas);
    return bump;
  }

  test('reserve rule on the ledger: 0/1/2/3 assets lock 1/1.5/2/2.5 XLM in the funding wallet, the wallet holds nothing locked', async () => {
    for (const [count, xlm] of [
      [0, '1'],
      [1, '1.5'],
      [2, '2'],
      [3, '2.5'],
    ] as const) {
      const [funding] = await fundAccounts(['20']);
      const before = await gw.loadAccount(funding!.publicKey());
      const wallet = Keypair.random();
      await activate(funding!, [{ kp: wallet, assets: assets().slice(0, count), startingBalanceXlm: '0' }], {
        gas: funding!,
      });
      const after = await gw.loadAccount(funding!.publicKey());
      const locked = minimumBalanceStroops(after!, 5_000_000n) - minimumBalanceStroops(before!, 5_000_000n);
      assert.equal(locked, reserveStroops(count), `${count} assets lock ${xlm} XLM`);
      assert.equal(after!.numSponsoring - before!.numSponsoring, 2 + count);
      const w = await gw.loadAccount(wallet.publicKey());
      assert.equal(w!.balanceStroops, 0n);
      assert.equal(w!.numSponsored, 2 + count);
      assert.equal(w!.sponsor, funding!.publicKey());
      assert.equal(minimumBalanceStroops(w!, 5_000_000n), 0n);
      const lines = await gw.trustlines(wallet.publicKey(), assets().slice(0, count));
      assert.deepEqual(
        lines.map((l) => l.sponsor),
        Array(count).fill(funding!.publicKey()),
      );
    }
  });

  test('the starting balance arrives as spendable XLM; the funding wallet pays it, the gas wallet the fee-bump fee', async () => {
    const [funding, gas] = await fundAccounts(['20', '5']);
    const [fundingBefore, gasBefore] = [
      await gw.loadAccount(funding!.publicKey()),
      await gw.loadAccount(gas!.publicKey()),
    ];
    const wallet = Keypair.random();
    await activate(funding!, [{ kp: wallet, assets: [assets()[0]!], startingBalanceXlm: '2.5' }], { gas: gas! });
    const w = await gw.loadAccount(wallet.publicKey());
    assert.equal(w!.balanceStroops, 25_000_000n);
    const [fundingAfter, gasAfter] = [
      await gw.loadAccount(funding!.publicKey()),
      await gw.loadAccount(gas!.publicKey()),
    ];
    assert.equal(
      fundingBefore!.balanceStroops - fundingAfter!.balanceStroops,
      25_000_000n,
      'the funding wallet paid the starting balance only',
    );
    assert.equal(
      gasBefore!.balanceStroops - gasAfter!.balanceStroops,
      6n * 100n,
      'the gas wallet paid (5 + 1) x 100 stroops',
    );
  });

  test('batched behind a channel account: several wallets in one transaction, the funding wallet sponsors all, the channel pays nothing', async () => {
    const [funding, channel, gas] = await fundAccounts(['30', '1', '5']);
    const [before, channelBefore] = [
      await gw.loadAccount(funding!.publicKey()),
      await gw.loadAccount(channel!.publicKey()),
    ];
    const wallets = [Keypair.random(), Keypair.random(), Keypair.random()];
    await activate(
      funding!,
      wallets.map((kp, i) => ({ kp, assets: assets().slice(0, i + 1), startingBalanceXlm: '1' })),
      { source: channel!, gas: gas! },
    );
    const after = await gw.loadAccount(funding!.publicKey());
    assert.equal(after!.numSponsoring - before!.numSponsoring, 3 + 4 + 5);
    assert.equal(
      before!.balanceStroops - after!.balanceStroops,
      3n * 10_000_000n,
      'the funding wallet paid the starting balances only',
    );
    const channelAfter = (await gw.loadAccount(channel!.publicKey()))!;
    assert.equal(
      channelAfter.balanceStroops,
      channelBefore!.balanceStroops,
      'the channel only gave its sequence number',
    );
    assert.equal(BigInt(channelAfter.sequence), BigInt(channelBefore!.sequence) + 1n);
    for (const kp of wallets) assert.equal((await gw.loadAccount(kp.publicKey()))!.sponsor, funding!.publicKey());
  });

  test('all or nothing: a failing trustline (no such issuer) leaves no account, no trustline, no reserve locked', async () => {
    const [funding] = await fundAccounts(['20']);
    const before = await gw.loadAccount(funding!.publicKey());
    const wallet = Keypair.random();
    const bogus = `ZZZ:${Keypair.random().publicKey()}`;
    await assert.rejects(
      activate(funding!, [{ kp: wallet, assets: [assets()[0]!, bogus], startingBalanceXlm: '1' }], { gas: funding! }),
      (err: unknown) => {
        assert.ok(err instanceof TransactionRejectedError);
        assert.equal(err.codes.transaction, 'tx_failed');
        assert.ok(err.codes.operations.includes('op_no_issuer'), err.codes.operations.join());
        return true;
      },
    );
    assert.equal(await gw.loadAccount(wallet.publicKey()), undefined);
    const after = await gw.loadAccount(funding!.publicKey());
    assert.equal(after!.numSponsoring, before!.numSponsoring);
    assert.equal(before!.balanceStroops - after!.balanceStroops, 7n * 100n, 'only the fee-bump fee was charged');
  });

  test('a funding wallet that cannot cover the reserve fails the whole transaction (low reserve)', async () => {
    const [funding, gas] = await fundAccounts(['1.5', '5']);
    const wallet = Keypair.random();
    await assert.rejects(
      activate(funding!, [{ kp: wallet, assets: [], startingBalanceXlm: '0' }], { gas: gas! }),
      TransactionRejectedError,
    );
    assert.equal(await gw.loadAccount(wallet.publicKey()), undefined);
  });
});
