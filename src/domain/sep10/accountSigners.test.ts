import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair, StrKey, xdr } from '@stellar/stellar-sdk';
import { accountSignersOf } from './accountSigners';

const account = Keypair.random().publicKey();
const cosigner = Keypair.random().publicKey();
const silent = Keypair.random().publicKey();

/** An account entry as Stellar RPC returns it, with the given thresholds [master, low, medium, high] and signers. */
function entry(thresholds: number[], signers: xdr.SignerKeyWire[] = [], weights: number[] = []): xdr.AccountEntry {
  return xdr.AccountEntry.fromXdrObject({
    accountId: { type: 0, ed25519: StrKey.decodeEd25519PublicKey(account) },
    balance: 100_000_000n,
    seqNum: 1n << 32n,
    numSubEntries: signers.length,
    inflationDest: null,
    flags: 0,
    homeDomain: new xdr.XdrString(''),
    thresholds: new Uint8Array(thresholds),
    signers: signers.map((key, i) => ({ key, weight: weights[i]! })),
    ext: { v: 0 },
  });
}

const ed25519 = (address: string): xdr.SignerKeyWire => ({ type: 0, ed25519: StrKey.decodeEd25519PublicKey(address) });

test('a new account: its master key with weight 1, medium threshold 0', () => {
  assert.deepEqual(accountSignersOf(account, entry([1, 0, 0, 0])), {
    threshold: 0,
    signers: [{ key: account, weight: 1, type: 'ed25519_public_key' }],
  });
});

test('multisig: the master key and ed25519 signers with their weights, and the medium threshold', () => {
  const got = accountSignersOf(account, entry([1, 1, 2, 3], [ed25519(cosigner)], [1]));
  assert.equal(got.threshold, 2);
  assert.deepEqual(
    got.signers.map((s) => [s.key, s.weight]),
    [
      [account, 1],
      [cosigner, 1],
    ],
  );
});

test('keys of weight 0 are left out, so a disabled master key cannot sign an operator in', () => {
  const got = accountSignersOf(account, entry([0, 1, 1, 1], [ed25519(cosigner), ed25519(silent)], [2, 0]));
  assert.deepEqual(
    got.signers.map((s) => s.key),
    [cosigner],
  );
});

test('signers that cannot sign a challenge (pre-authorized transaction, hash(x)) are left out', () => {
  const got = accountSignersOf(
    account,
    entry(
      [1, 0, 1, 0],
      [
        { type: 1, preAuthTx: new Uint8Array(32).fill(1) },
        { type: 2, hashX: new Uint8Array(32).fill(2) },
      ],
      [5, 5],
    ),
  );
  assert.deepEqual(
    got.signers.map((s) => s.key),
    [account],
  );
});
