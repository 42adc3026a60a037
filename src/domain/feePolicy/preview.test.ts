// The dry run's reading of a described transaction: the facts it gives the policy are the ones describeTransaction
// reads from the same transaction really built (so a dry run and a submission judge the same thing), an operation
// naming no asset its type could move is undetermined (denied), and merge destinations' checksums are checked.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Asset, Keypair, Networks, Operation, TransactionBuilder, type xdr } from '@stellar/stellar-sdk';
import { describeTransaction } from '../transactions/describe';
import { describedTransactionFacts, describedTransactionFieldErrors, type DescribedOperation } from './preview';

const wallet = Keypair.random().publicKey();
const other = Keypair.random().publicKey();
const issuer = Keypair.random().publicKey();
const USDC = new Asset('USDC', issuer);
const EURC = new Asset('EURC', issuer);
const BRL = new Asset('BRL', issuer);
const name = (a: Asset) => (a.isNative() ? 'native' : `${a.getCode()}:${a.getIssuer()}`);

/** Each operation type the contract lets a dry run describe, really built, beside its description. */
const PAIRS: [xdr.Operation, DescribedOperation][] = [
  [Operation.payment({ destination: other, asset: USDC, amount: '1' }), { type: 'payment', asset: name(USDC) }],
  [Operation.changeTrust({ asset: EURC }), { type: 'changeTrust', asset: name(EURC) }],
  [
    Operation.pathPaymentStrictSend({
      sendAsset: USDC,
      sendAmount: '1',
      destination: other,
      destAsset: Asset.native(),
      destMin: '1',
      path: [BRL],
    }),
    { type: 'pathPaymentStrictSend', sendAsset: name(USDC), destAsset: 'native', path: [name(BRL)] },
  ],
  [
    Operation.pathPaymentStrictReceive({
      sendAsset: Asset.native(),
      sendMax: '1',
      destination: other,
      destAsset: EURC,
      destAmount: '1',
    }),
    { type: 'pathPaymentStrictReceive', sendAsset: 'native', destAsset: name(EURC) },
  ],
  [
    Operation.manageSellOffer({ selling: BRL, buying: USDC, amount: '1', price: '1' }),
    { type: 'manageSellOffer', selling: name(BRL), buying: name(USDC) },
  ],
  [
    Operation.manageBuyOffer({ selling: USDC, buying: EURC, buyAmount: '1', price: '1' }),
    { type: 'manageBuyOffer', selling: name(USDC), buying: name(EURC) },
  ],
  [
    Operation.createPassiveSellOffer({ selling: EURC, buying: Asset.native(), amount: '1', price: '1' }),
    { type: 'createPassiveSellOffer', selling: name(EURC), buying: 'native' },
  ],
  [Operation.createAccount({ destination: other, startingBalance: '1' }), { type: 'createAccount' }],
  [Operation.accountMerge({ destination: other }), { type: 'accountMerge', destination: other }],
  [Operation.setOptions({ homeDomain: 'example.com' }), { type: 'setOptions' }],
  [Operation.manageData({ name: 'k', value: 'v' }), { type: 'manageData' }],
  [Operation.bumpSequence({ bumpTo: '1000' }), { type: 'bumpSequence' }],
  [Operation.beginSponsoringFutureReserves({ sponsoredId: other }), { type: 'beginSponsoringFutureReserves' }],
  [Operation.endSponsoringFutureReserves({}), { type: 'endSponsoringFutureReserves' }],
];

function built(ops: xdr.Operation[]) {
  const builder = new TransactionBuilder(new Account(wallet, '100'), {
    fee: '100',
    networkPassphrase: Networks.TESTNET,
  }).setTimeout(60);
  for (const op of ops) builder.addOperation(op);
  return TransactionBuilder.fromXDR(builder.build().toXDR(), Networks.TESTNET) as ReturnType<typeof builder.build>;
}

describe('describedTransactionFacts', () => {
  test('each described operation gives the facts describeTransaction reads from it really built', () => {
    for (const [op, described] of PAIRS) {
      const real = describeTransaction(built([op]));
      const facts = describedTransactionFacts({ operations: [described], feeXlm: '0.00002' });
      assert.deepEqual(
        {
          movedAssets: facts.movedAssets,
          undetermined: facts.undeterminedAssetOperations,
          operationTypes: facts.operationTypes,
          accountMergeDestinations: facts.accountMergeDestinations,
          opsCount: facts.opsCount,
        },
        {
          movedAssets: real.movedAssets,
          undetermined: real.undeterminedAssetOperations,
          operationTypes: real.operationTypes,
          accountMergeDestinations: real.accountMergeDestinations,
          opsCount: real.opsCount,
        },
        described.type,
      );
    }
  });

  test('all of them in one transaction: the same facts, assets deduplicated in order; the fee in stroops', () => {
    const real = describeTransaction(built(PAIRS.map(([op]) => op)));
    const facts = describedTransactionFacts({ operations: PAIRS.map(([, d]) => d), feeXlm: '0.0000150' });
    assert.deepEqual(facts.movedAssets, real.movedAssets);
    assert.deepEqual(facts.operationTypes, real.operationTypes);
    assert.deepEqual(facts.accountMergeDestinations, [other]);
    assert.equal(facts.opsCount, PAIRS.length);
    assert.equal(facts.feeStroops, 150n);
  });

  test('an operation that names no asset its type could move is undetermined (the policy denies it), once', () => {
    const facts = describedTransactionFacts({
      operations: [{ type: 'payment' }, { type: 'payment' }, { type: 'createAccount' }],
      feeXlm: '1',
    });
    assert.deepEqual(facts.undeterminedAssetOperations, ['payment']);
    assert.deepEqual(facts.movedAssets, ['native']);
  });
});

describe('describedTransactionFieldErrors', () => {
  test('a merge destination with a bad checksum is named by its path; a valid one passes', () => {
    const bad = `${other.slice(0, -1)}${other.endsWith('A') ? 'B' : 'A'}`;
    assert.deepEqual(
      describedTransactionFieldErrors({
        operations: [
          { type: 'accountMerge', destination: other },
          { type: 'accountMerge', destination: bad },
        ],
        feeXlm: '1',
      }),
      { 'transaction.operations.1.destination': [`${bad} is not a valid Stellar account id (G..., checksum)`] },
    );
  });
});
