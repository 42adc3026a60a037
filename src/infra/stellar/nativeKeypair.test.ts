import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { Account, Asset, Keypair, Networks, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { NativeKeypair } from './nativeKeypair';

describe('NativeKeypair', () => {
  test('the same public key, secret and signatures as the SDK keypair of the seed', () => {
    for (let i = 0; i < 20; i++) {
      const seed = randomBytes(32);
      const sdk = Keypair.fromRawEd25519Seed(seed);
      const native = NativeKeypair.fromSeed(seed);
      assert.equal(native.publicKey(), sdk.publicKey());
      assert.equal(native.secret(), sdk.secret());
      const message = randomBytes(1 + i * 13);
      assert.deepEqual(Buffer.from(native.sign(message)), Buffer.from(sdk.sign(message)));
      assert.ok(sdk.verify(message, Buffer.from(native.sign(message))));
    }
  });

  test('a transaction signed through it carries the SDK keypair’s decorated signature', () => {
    const seed = randomBytes(32);
    const sdk = Keypair.fromRawEd25519Seed(seed);
    const build = () =>
      new TransactionBuilder(new Account(sdk.publicKey(), '41'), { fee: '100', networkPassphrase: Networks.TESTNET })
        .addOperation(Operation.payment({ destination: sdk.publicKey(), asset: Asset.native(), amount: '1' }))
        .setTimeout(0)
        .build();
    const a = build();
    const b = build();
    a.sign(sdk);
    b.sign(NativeKeypair.fromSeed(seed));
    assert.equal(b.toXDR(), a.toXDR());
  });

  test('it copies the seed, and once wiped its seed is zero and it cannot sign', () => {
    const seed = randomBytes(32);
    const kp = NativeKeypair.fromSeed(seed);
    seed.fill(0);
    assert.ok(kp.canSign());
    assert.ok(Keypair.fromPublicKey(kp.publicKey()).verify(Buffer.from('m'), Buffer.from(kp.sign(Buffer.from('m')))));
    kp.wipe();
    assert.equal(kp.canSign(), false);
    assert.ok(kp.rawSecretKey().every((b) => b === 0));
    assert.throws(() => kp.sign(Buffer.from('m')), /wiped/);
    assert.throws(() => kp.secret(), /wiped/);
  });

  test('a seed of the wrong length is refused', () => {
    assert.throws(() => NativeKeypair.fromSeed(randomBytes(31)), RangeError);
    assert.throws(() => NativeKeypair.fromSeed(randomBytes(64)), RangeError);
  });
});
