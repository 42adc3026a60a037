// describeTransaction: the words and facts read from a transaction, for every operation the service builds and for
// transactions a client brings (several operations, sponsorship sandwiches, muxed addresses, every memo type).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Account,
  Asset,
  Keypair,
  Memo,
  MuxedAccount,
  Networks,
  Operation,
  TransactionBuilder,
  xdr,
  type Transaction,
} from '@stellar/stellar-sdk';
import { assetName, describeTransaction, shortAddress } from './describe';

const wallet = Keypair.random().publicKey();
const other = Keypair.random().publicKey();
const funding = Keypair.random().publicKey();
const issuer = Keypair.random().publicKey();
const USDC = new Asset('USDC', issuer);
const EURC = new Asset('EURC', issuer);

function txOf(ops: xdr.Operation[], opts: { memo?: Memo; source?: string } = {}) {
  const builder = new TransactionBuilder(new Account(opts.source ?? wallet, '100'), {
    fee: '100',
    networkPassphrase: Networks.TESTNET,
    ...(opts.memo ? { memo: opts.memo } : {}),
  }).setTimeout(60);
  for (const op of ops) builder.addOperation(op);
  // Through XDR, as the service reads a client's transaction.
  return TransactionBuilder.fromXDR(builder.build().toXDR(), Networks.TESTNET) as ReturnType<typeof builder.build>;
}

describe('shortAddress and assetName', () => {
  test('first 4 and last 4 characters; native or CODE:ISSUER', () => {
    assert.equal(shortAddress('GA2UVK3AHD3LAKYQSELNKDEZRA2EK3MXABMAF7KDRZCGLUZ2GCMPW27N'), 'GA2U...W27N');
    assert.equal(assetName(Asset.native()), 'native');
    assert.equal(assetName(USDC), `USDC:${issuer}`);
  });
});

describe('describeTransaction: payments', () => {
  test('a payment with a text memo: fields, canonical amount, title and lines as the contract example', () => {
    const d = describeTransaction(
      txOf([Operation.payment({ destination: other, asset: USDC, amount: '10.5000000' })], {
        memo: Memo.text('order 42'),
      }),
    );
    assert.equal(d.operation, 'payment');
    assert.equal(d.opsCount, 1);
    assert.deepEqual(d.operationTypes, ['payment']);
    assert.equal(d.sourceAccount, wallet);
    assert.equal(d.destination, other);
    assert.equal(d.asset, `USDC:${issuer}`);
    assert.equal(d.amount, '10.5');
    assert.equal(d.memo, 'order 42');
    assert.deepEqual(d.movedAssets, [`USDC:${issuer}`]);
    assert.deepEqual(d.accountMergeDestinations, []);
    assert.deepEqual(d.payments, [{ from: wallet, to: other, asset: `USDC:${issuer}`, amount: '10.5' }]);
    assert.equal(d.title, 'Send 10.5 USDC');
    assert.deepEqual(d.lines, [`To ${shortAddress(other)}`, 'Amount 10.5 USDC', 'Memo order 42']);
  });

  test("each side's history line: sent by the source, received by the destination, 'sent' for a bystander", () => {
    const d = describeTransaction(
      txOf([Operation.payment({ destination: other, asset: Asset.native(), amount: '10' })]),
    );
    assert.deepEqual(d.summaryFor(wallet), { direction: 'sent', text: `Sent 10 XLM to ${shortAddress(other)}` });
    assert.deepEqual(d.summaryFor(other), {
      direction: 'received',
      text: `Received 10 XLM from ${shortAddress(wallet)}`,
    });
    assert.equal(d.summaryFor(funding).direction, 'sent');
  });

  test('an operation source pays instead of the transaction source', () => {
    const d = describeTransaction(
      txOf([Operation.payment({ destination: wallet, asset: USDC, amount: '3', source: other })]),
    );
    assert.deepEqual(d.payments, [{ from: other, to: wallet, asset: `USDC:${issuer}`, amount: '3' }]);
    assert.deepEqual(d.summaryFor(wallet), {
      direction: 'received',
      text: `Received 3 USDC from ${shortAddress(other)}`,
    });
  });

  test('muxed addresses are their G-accounts', () => {
    const muxedOther = new MuxedAccount(new Account(other, '0'), '42').accountId();
    const muxedWallet = new MuxedAccount(new Account(wallet, '100'), '7');
    const tx = new TransactionBuilder(muxedWallet, { fee: '100', networkPassphrase: Networks.TESTNET })
      .addOperation(Operation.payment({ destination: muxedOther, asset: Asset.native(), amount: '1' }))
      .setTimeout(60)
      .build();
    const d = describeTransaction(TransactionBuilder.fromXDR(tx.toXDR(), Networks.TESTNET) as typeof tx);
    assert.equal(d.sourceAccount, wallet);
    assert.equal(d.destination, other);
    assert.deepEqual(d.payments, [{ from: wallet, to: other, asset: 'native', amount: '1' }]);
    assert.equal(d.summaryFor(other).direction, 'received');
  });

  test('strict send to another account: send amount, every asset moved including the path, destMin as the paid amount', () => {
    const d = describeTransaction(
      txOf([
        Operation.pathPaymentStrictSend({
          sendAsset: USDC,
          sendAmount: '10',
          destination: other,
          destAsset: EURC,
          destMin: '9.5',
          path: [Asset.native()],
        }),
      ]),
    );
    assert.equal(d.operation, 'pathPaymentStrictSend');
    assert.equal(d.asset, `USDC:${issuer}`);
    assert.equal(d.amount, '10');
    assert.deepEqual(d.movedAssets, [`USDC:${issuer}`, 'native', `EURC:${issuer}`]);
    assert.deepEqual(d.payments, [{ from: wallet, to: other, asset: `EURC:${issuer}`, amount: '9.5' }]);
    assert.equal(d.title, 'Swap 10 USDC for EURC');
    assert.deepEqual(d.lines, [`To ${shortAddress(other)}`, 'Send 10 USDC', 'Receive at least 9.5 EURC', 'Via XLM']);
    assert.deepEqual(d.summaryFor(other), {
      direction: 'received',
      text: `Received at least 9.5 EURC from ${shortAddress(wallet)}`,
    });
    assert.deepEqual(d.summaryFor(wallet), { direction: 'sent', text: `Sent 10 USDC to ${shortAddress(other)}` });
  });

  test('strict receive to oneself is a swap: destAmount, no To line, the wallet sent it', () => {
    const d = describeTransaction(
      txOf([
        Operation.pathPaymentStrictReceive({
          sendAsset: Asset.native(),
          sendMax: '30',
          destination: wallet,
          destAsset: USDC,
          destAmount: '10',
          path: [],
        }),
      ]),
    );
    assert.equal(d.amount, '10');
    assert.equal(d.asset, 'native');
    assert.equal(d.title, 'Swap XLM for 10 USDC');
    assert.deepEqual(d.lines, ['Send at most 30 XLM', 'Receive 10 USDC']);
    assert.deepEqual(d.summaryFor(wallet), { direction: 'sent', text: 'Swapped XLM for 10 USDC' });
  });

  test('createAccount: native payment of the starting balance', () => {
    const d = describeTransaction(txOf([Operation.createAccount({ destination: other, startingBalance: '5' })]));
    assert.equal(d.destination, other);
    assert.equal(d.amount, '5');
    assert.deepEqual(d.payments, [{ from: wallet, to: other, asset: 'native', amount: '5' }]);
    assert.deepEqual(d.movedAssets, ['native']);
    assert.equal(d.summaryFor(other).direction, 'received');
  });
});

describe('describeTransaction: trustlines and other operations', () => {
  test('a sponsored trustline: the main operation is the changeTrust, not the sandwich', () => {
    const d = describeTransaction(
      txOf([
        Operation.beginSponsoringFutureReserves({ sponsoredId: wallet, source: funding }),
        Operation.changeTrust({ asset: USDC }),
        Operation.endSponsoringFutureReserves({}),
      ]),
    );
    assert.equal(d.operation, 'changeTrust');
    assert.equal(d.opsCount, 3);
    assert.deepEqual(d.operationTypes, ['beginSponsoringFutureReserves', 'changeTrust', 'endSponsoringFutureReserves']);
    assert.equal(d.asset, `USDC:${issuer}`);
    assert.equal(d.amount, null);
    assert.equal(d.destination, null);
    assert.deepEqual(d.movedAssets, [`USDC:${issuer}`]);
    assert.deepEqual(d.payments, []);
    assert.equal(d.title, 'Add USDC trustline');
    assert.deepEqual(d.lines, [
      `Asset USDC issued by ${shortAddress(issuer)}`,
      `Reserve sponsored by ${shortAddress(funding)}`,
    ]);
    assert.deepEqual(d.summaryFor(wallet), { direction: 'sent', text: 'Added USDC trustline' });
  });

  test('limit 0 removes the trustline', () => {
    const d = describeTransaction(txOf([Operation.changeTrust({ asset: USDC, limit: '0' })]));
    assert.equal(d.title, 'Remove USDC trustline');
    assert.equal(d.summaryFor(wallet).text, 'Removed USDC trustline');
  });

  test('accountMerge: its destination listed for the fee policy', () => {
    const d = describeTransaction(txOf([Operation.accountMerge({ destination: other })]));
    assert.equal(d.operation, 'accountMerge');
    assert.equal(d.destination, other);
    assert.deepEqual(d.accountMergeDestinations, [other]);
    assert.equal(d.title, 'Merge account');
    assert.equal(d.summaryFor(wallet).text, `Merged account into ${shortAddress(other)}`);
  });

  test('an operation without words of its own is named by its type', () => {
    const d = describeTransaction(txOf([Operation.setOptions({ homeDomain: 'example.com' })]));
    assert.equal(d.title, 'setOptions');
    assert.deepEqual(d.summaryFor(wallet), { direction: 'sent', text: 'setOptions' });
    assert.deepEqual(d.movedAssets, []);
  });

  test('offers move both their assets', () => {
    const d = describeTransaction(
      txOf([Operation.manageSellOffer({ selling: USDC, buying: EURC, amount: '1', price: '1' })]),
    );
    assert.deepEqual(d.movedAssets, [`USDC:${issuer}`, `EURC:${issuer}`]);
  });

  test('several operations: every payment, deduped assets, the count in the title and the lines', () => {
    const third = Keypair.random().publicKey();
    const d = describeTransaction(
      txOf([
        Operation.payment({ destination: other, asset: USDC, amount: '1' }),
        Operation.payment({ destination: third, asset: USDC, amount: '2' }),
        Operation.accountMerge({ destination: other }),
      ]),
    );
    assert.equal(d.operation, 'payment');
    assert.equal(d.title, 'Send 1 USDC and 2 more operations');
    assert.ok(d.lines.includes('3 operations: payment, payment, accountMerge'), d.lines.join(' | '));
    assert.deepEqual(d.movedAssets, [`USDC:${issuer}`, 'native'], "a merge moves the account's XLM");
    assert.equal(d.payments.length, 2);
    assert.deepEqual(d.accountMergeDestinations, [other]);
    assert.deepEqual(d.summaryFor(third), {
      direction: 'received',
      text: `Received 2 USDC from ${shortAddress(wallet)}`,
    });
    assert.equal(d.summaryFor(wallet).text, `Sent 1 USDC to ${shortAddress(other)} and 2 more operations`);
  });
});

describe('describeTransaction: memos', () => {
  const pay = () => Operation.payment({ destination: other, asset: Asset.native(), amount: '1' });
  test('id, hash and UTF-8 text memos', () => {
    assert.equal(
      describeTransaction(txOf([pay()], { memo: Memo.id('18446744073709551615') })).memo,
      '18446744073709551615',
    );
    const hash = 'ab'.repeat(32);
    const withHash = describeTransaction(txOf([pay()], { memo: Memo.hash(hash) }));
    assert.equal(withHash.memo, hash);
    assert.ok(withHash.lines.includes(`Memo (hash) ${hash}`));
    assert.equal(describeTransaction(txOf([pay()], { memo: Memo.text('café ☕') })).memo, 'café ☕');
    assert.equal(describeTransaction(txOf([pay()])).memo, null);
  });

  test('a text memo of bytes that are not UTF-8, or with NUL, is shown with U+FFFD in their place; the bytes are kept', () => {
    const invalid = describeTransaction(txOf([pay()], { memo: Memo.text(Buffer.from([0xff, 0xfe, 0x41])) }));
    assert.equal(invalid.memo, '\uFFFD\uFFFDA');
    assert.equal(invalid.memoBase64, Buffer.from([0xff, 0xfe, 0x41]).toString('base64'));
    assert.ok(invalid.lines.includes('Memo \uFFFD\uFFFDA'));
    const nul = describeTransaction(txOf([pay()], { memo: Memo.text(Buffer.from([0x61, 0x00, 0x62])) }));
    assert.equal(nul.memo, 'a\uFFFDb');
    assert.equal(nul.memoBase64, 'YQBi');
    const plain = describeTransaction(txOf([pay()], { memo: Memo.id('42') }));
    assert.equal(plain.memoBase64, null);
  });
});

describe('describeTransaction: what the network would refuse still reads', () => {
  test("a client's payment of a negative amount (the builder refuses one; raw XDR can carry it)", () => {
    const envelope = xdr.TransactionEnvelope.fromXdr(
      txOf([Operation.payment({ destination: other, asset: Asset.native(), amount: '1' })]).toXDR(),
      'base64',
    );
    (
      envelope as unknown as { v1: { tx: { operations: { body: { paymentOp: { amount: bigint } } }[] } } }
    ).v1.tx.operations[0]!.body.paymentOp.amount = -10_000_000n;
    const d = describeTransaction(
      TransactionBuilder.fromXDR(envelope.toXdr('base64'), Networks.TESTNET) as Transaction,
    );
    assert.equal(d.amount, '-1');
  });

  test('Soroban and issuer operations are named by their type', () => {
    const d = describeTransaction(
      txOf([Operation.restoreFootprint({}), Operation.clawback({ asset: USDC, amount: '1', from: other })]),
    );
    assert.equal(d.operation, 'restoreFootprint');
    assert.deepEqual(d.movedAssets, [`USDC:${issuer}`]);
  });
});

describe('describeTransaction: assets the transaction does not name', () => {
  test('claimable balance claims, pool deposits and withdrawals are read from the ledger; bumpSequence moves nothing; Soroban is undetermined', () => {
    const pool = 'ab'.repeat(32);
    const d = describeTransaction(
      txOf([
        Operation.claimClaimableBalance({ balanceId: '00000000' + 'cd'.repeat(32) }),
        Operation.liquidityPoolDeposit({
          liquidityPoolId: pool,
          maxAmountA: '1',
          maxAmountB: '1',
          minPrice: '0.5',
          maxPrice: '2',
        }),
        Operation.liquidityPoolWithdraw({ liquidityPoolId: pool, amount: '1', minAmountA: '0', minAmountB: '0' }),
        Operation.bumpSequence({ bumpTo: '0' }),
      ]),
    );
    assert.deepEqual(
      d.ledgerAssetLookups.map((l) => [l.operation, l.kind, l.id]),
      [
        ['claimClaimableBalance', 'claimableBalance', '00000000' + 'cd'.repeat(32)],
        ['liquidityPoolDeposit', 'liquidityPool', pool],
        ['liquidityPoolWithdraw', 'liquidityPool', pool],
      ],
    );
    assert.deepEqual(d.undeterminedAssetOperations, []);
    assert.deepEqual(d.movedAssets, []);
    const soroban = describeTransaction(
      txOf([
        Operation.invokeContractFunction({
          contract: 'CA3D5KRYM6CB7OWQ6TWYRR3Z4T7GNZLKERYNZGGA5SOAOPIFY6YQGAXE',
          function: 'transfer',
          args: [],
        }),
      ]),
    );
    assert.deepEqual(soroban.undeterminedAssetOperations, ['invokeHostFunction']);
  });
});
