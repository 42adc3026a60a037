import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  Account,
  Asset,
  Keypair,
  Networks,
  Operation,
  TransactionBuilder,
  type Transaction,
} from '@stellar/stellar-sdk';
import { signTransaction, transactionHash, transactionHashHex } from './transactionHash';

const source = Keypair.random();
const cosigner = Keypair.random();
const gas = Keypair.random();

function payment(sequence: string, amount = '1'): Transaction {
  return new TransactionBuilder(new Account(source.publicKey(), sequence), {
    fee: '100',
    networkPassphrase: Networks.TESTNET,
  })
    .addOperation(Operation.payment({ destination: gas.publicKey(), asset: Asset.native(), amount }))
    .setTimeout(0)
    .build();
}

describe('transactionHash', () => {
  test('the SDK hash of each transaction, kept per object: another transaction gets its own', () => {
    const a = payment('41');
    const b = payment('41', '2');
    assert.deepEqual(transactionHash(a), Buffer.from(a.hash()));
    assert.deepEqual(transactionHash(b), Buffer.from(b.hash()));
    assert.notDeepEqual(transactionHash(a), transactionHash(b));
    assert.equal(transactionHash(a), transactionHash(a), 'the same Buffer the second time');
    assert.equal(transactionHashHex(a), Buffer.from(a.hash()).toString('hex'));
  });

  test('signatures added after the hash was kept leave it right (they are not part of it)', () => {
    const tx = payment('7');
    const before = transactionHash(tx);
    tx.sign(source);
    assert.deepEqual(Buffer.from(tx.hash()), before);
  });

  test('signTransaction gives the envelope the SDK sign() gives, inner and fee-bump alike', () => {
    const ours = payment('99');
    const sdks = payment('99');
    transactionHash(ours); // kept before signing, as a run records the hash first
    signTransaction(ours, source, cosigner);
    sdks.sign(source, cosigner);
    assert.equal(ours.toXDR(), sdks.toXDR());

    const ourBump = TransactionBuilder.buildFeeBumpTransaction(gas, '200', ours, Networks.TESTNET);
    const sdkBump = TransactionBuilder.buildFeeBumpTransaction(gas, '200', sdks, Networks.TESTNET);
    signTransaction(ourBump, gas);
    sdkBump.sign(gas);
    assert.equal(ourBump.toXDR(), sdkBump.toXDR());
    assert.equal(transactionHashHex(ourBump), Buffer.from(sdkBump.hash()).toString('hex'));
    // The fee-bump's hash covers the inner signatures, and it is the one the RPC names.
    assert.notEqual(transactionHashHex(ourBump), transactionHashHex(ours));
  });
});
