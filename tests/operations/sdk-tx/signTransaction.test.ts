// signTransaction: the session user's custodial key signs a transaction built by buildTransaction (by txId) or any
// unsigned transaction of the wallet (by XDR); nothing is submitted, every decryption is audited, and operations that
// would hand over the wallet are refused. Set-up in feeBump.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Asset, Keypair, Operation, TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import { gatewayOf } from '../../support/funding';
import type { UserClient } from '../../support/users';
import { appWalletKey, fundedUser, pay, svc, unsignedOps, useService } from './feeBump.setup';

/** The signed envelope, checked to carry exactly one signature, made by the wallet's key over this network. */
function signedByWallet(user: UserClient, signedXdr: string): Transaction {
  const tx = TransactionBuilder.fromXDR(signedXdr, gatewayOf(svc).networkPassphrase) as Transaction;
  const wallet = Keypair.fromPublicKey(user.signIn.wallet.publicKey);
  assert.equal(tx.source, wallet.publicKey());
  assert.equal(tx.signatures.length, 1);
  assert.ok(
    wallet.verify(Buffer.from(tx.hash()), Buffer.from(tx.signatures[0]!.signature.toBytes())),
    "the wallet key's signature",
  );
  return tx;
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

async function keyDecryptions(user: UserClient): Promise<number> {
  const rows = await svc.deps
    .db('audit_log')
    .join('wallets', 'wallets.id', 'audit_log.wallet_id')
    .where({ 'wallets.public_key': user.signIn.wallet.publicKey, 'audit_log.action': 'key.decrypt' })
    .count<{ n: string }[]>({ n: '*' });
  return Number(rows[0]!.n);
}

describe('signTransaction', () => {
  useService();

  test('by txId: 200 TX_SIGNED with the built transaction signed by the wallet; audited; nothing submitted', async () => {
    const user = await fundedUser();
    const built = await user.call('buildTransaction', 'POST', '/v1/tx/build', { body: pay('1') });
    assert.equal(built.status, 201, built.text);
    const decryptionsBefore = await keyDecryptions(user);

    const signed = await user.call('signTransaction', 'POST', '/v1/tx/sign', {
      body: { txId: built.body.content.txId },
    });
    assert.equal(signed.status, 200, signed.text);
    assert.equal(signed.body.code, 'TX_SIGNED');
    assert.equal(signed.body.content.txId, built.body.content.txId);
    const tx = signedByWallet(user, signed.body.content.signedXdr);
    assert.equal(tx.operations[0]!.type, 'payment');
    assert.equal(await keyDecryptions(user), decryptionsBefore + 1, 'one key.decrypt entry per signature');

    const chain = await gatewayOf(svc).transactionStatus(hex(tx.hash()));
    assert.equal(chain.status, 'NOT_FOUND', 'signing submits nothing');
  });

  test('by unsignedXdr: signed as given, recorded in history as PENDING with a new txId', async () => {
    const user = await fundedUser();
    const unsignedXdr = await unsignedOps(user, [
      Operation.payment({ destination: appWalletKey, asset: Asset.native(), amount: '1' }),
    ]);
    const signed = await user.call('signTransaction', 'POST', '/v1/tx/sign', { body: { unsignedXdr } });
    assert.equal(signed.status, 200, signed.text);
    assert.match(signed.body.content.txId, /^tx_/);
    const tx = signedByWallet(user, signed.body.content.signedXdr);
    const unsigned = TransactionBuilder.fromXDR(unsignedXdr, gatewayOf(svc).networkPassphrase) as Transaction;
    assert.equal(hex(tx.hash()), hex(unsigned.hash()), 'the same transaction, only signed');

    const recorded = await svc.deps.db('transactions').where({ id: signed.body.content.txId }).first('status', 'hash');
    assert.equal(recorded?.status, 'PENDING');
  });

  test('an unsigned transaction of another account: 400 TX_INVALID_SIGNED_XDR, nothing signed or recorded', async () => {
    const [user, other] = [await fundedUser(), await fundedUser()];
    const othersXdr = await unsignedOps(other, [Operation.bumpSequence({ bumpTo: '0' })]);
    const decryptionsBefore = await keyDecryptions(user);
    const res = await user.call('signTransaction', 'POST', '/v1/tx/sign', { body: { unsignedXdr: othersXdr } });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.code, 'TX_INVALID_SIGNED_XDR');
    assert.equal(await keyDecryptions(user), decryptionsBefore, 'no key decrypted');
  });

  test("another user's transaction id: 404 TX_NOT_FOUND; setOptions that would hand over the wallet: 422", async () => {
    const alice = await fundedUser();
    const bob = await fundedUser();
    const built = await alice.call('buildTransaction', 'POST', '/v1/tx/build', { body: pay('1') });
    const other = await bob.call('signTransaction', 'POST', '/v1/tx/sign', { body: { txId: built.body.content.txId } });
    assert.equal(other.status, 404);
    assert.equal(other.body.code, 'TX_NOT_FOUND');
    const takeover = await unsignedOps(bob, [
      Operation.setOptions({ signer: { ed25519PublicKey: Keypair.random().publicKey(), weight: 1 } }),
    ]);
    const refused = await bob.call('signTransaction', 'POST', '/v1/tx/sign', { body: { unsignedXdr: takeover } });
    assert.equal(refused.status, 422);
    assert.equal(refused.body.code, 'TX_UNSUPPORTED_OPERATION');
  });
});
