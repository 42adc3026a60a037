// withSequence: a built transaction takes its reserved number and the minSeqNum precondition, and nothing else moves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Asset, Keypair, Memo, Networks, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { withSequence } from './sequences';

const source = Keypair.random();
const destination = Keypair.random().publicKey();

function built() {
  const tx = new TransactionBuilder(new Account(source.publicKey(), '41'), {
    fee: '100',
    networkPassphrase: Networks.TESTNET,
    memo: Memo.text('rent'),
    timebounds: { minTime: 0, maxTime: 1_900_000_000 },
  })
    .addOperation(Operation.payment({ destination, asset: Asset.native(), amount: '12.5' }))
    .build();
  tx.sign(source);
  return tx;
}

test('withSequence sets the number and minSeqNum, keeps time bounds, memo, fee and operations, drops signatures', () => {
  const original = built();
  const tx = withSequence(original, 57n, 41n, Networks.TESTNET);
  assert.equal(tx.sequence, '57');
  assert.equal(tx.minAccountSequence, '41');
  assert.deepEqual(tx.timeBounds, original.timeBounds);
  assert.equal(Buffer.from(tx.memo.value as Uint8Array).toString(), 'rent');
  assert.equal(tx.fee, original.fee);
  assert.deepEqual(JSON.parse(JSON.stringify(tx.operations)), JSON.parse(JSON.stringify(original.operations)));
  assert.equal(tx.signatures.length, 0);
  assert.notEqual(Buffer.from(tx.hash()).toString('hex'), Buffer.from(original.hash()).toString('hex'));
  // The original is untouched.
  assert.equal(original.sequence, '42');
  assert.equal(original.signatures.length, 1);
});

test('withSequence of a transaction without time bounds gives none', () => {
  const tx = new TransactionBuilder(new Account(source.publicKey(), '1'), {
    fee: '100',
    networkPassphrase: Networks.TESTNET,
    timebounds: { minTime: 0, maxTime: 0 },
  })
    .addOperation(Operation.bumpSequence({ bumpTo: '0' }))
    .build();
  const resequenced = withSequence(tx, 9n, 1n, Networks.TESTNET);
  assert.equal(resequenced.sequence, '9');
  assert.deepEqual(resequenced.timeBounds, tx.timeBounds);
});
