// getTransaction: over HTTP against the real service (PostgreSQL, the in-process localnet), every answer checked
// against the contract; history rows are written through the store as the service writes them.
import { describe, test } from 'node:test';
import { Account, Keypair, Operation, TransactionBuilder, type xdr } from '@stellar/stellar-sdk';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { insertTransaction } from '../../../src/domain/transactions/store';
import { signInUser } from '../../support/users';
import { gatewayOf } from '../../support/funding';
import { newTx } from '../../support/history';
import { ctx, useService } from './setup';

useService();

/** A friendbot-funded account of the test, and a way to send its transactions. */
async function outsider(): Promise<{ keypair: Keypair; send(ops: xdr.Operation[]): Promise<string> }> {
  const keypair = Keypair.random();
  const gw = gatewayOf(ctx.svc);
  await gw.fundWithFriendbot(keypair.publicKey());
  return {
    keypair,
    async send(ops) {
      const account = (await gw.loadAccount(keypair.publicKey()))!;
      const builder = new TransactionBuilder(new Account(keypair.publicKey(), account.sequence), {
        fee: '100',
        networkPassphrase: gw.networkPassphrase,
      }).setTimeout(60);
      for (const op of ops) builder.addOperation(op);
      const tx = builder.build();
      tx.sign(keypair);
      return (await gw.submitAndConfirm(tx)).hash;
    },
  };
}

describe('GET /v1/tx/{hash}', () => {
  test('200 from the records: by the hash and by the inner hash, with the ledger and the envelope once known', async () => {
    const user = await signInUser(ctx.svc, { publishableKey: ctx.publishableKey });
    const { walletId } = user.signIn.wallet;
    const inner = randomBytes(32).toString('hex');
    const tx = await ctx.svc.deps.db.transaction((trx) =>
      insertTransaction(
        trx,
        newTx(ctx.app.id, walletId, new Date('2026-11-21T10:15:30Z'), {
          innerHash: inner,
          ledger: 1234,
          envelopeXdr: 'AAAAAgAAAAA=',
        }),
        [{ walletId, direction: 'sent', summary: 'Sent 10 USDC to GA2U...W27N' }],
      ),
    );
    for (const hash of [tx!.hash, inner]) {
      const res = await user.call('getTransaction', 'GET', `/v1/tx/${hash}`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.code, 'TX_FETCHED');
      assert.deepEqual(res.body.content, {
        id: tx!.id,
        hash: tx!.hash,
        network: 'testnet',
        status: 'SUCCESS',
        operation: 'payment',
        feeXlm: '0.00002',
        resultCode: 'tx_success',
        summary: 'Sent 10 USDC to GA2U...W27N',
        createdAt: '2026-11-21T10:15:30.000Z',
        ledger: 1234,
        envelopeXdr: 'AAAAAgAAAAA=',
      });
    }
    // Another user's transaction is not found for this one.
    const stranger = await signInUser(ctx.svc, { publishableKey: ctx.publishableKey });
    const res = await stranger.call('getTransaction', 'GET', `/v1/tx/${tx!.hash}`);
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'TX_NOT_FOUND');
  });

  test("200 from Stellar RPC: a payment into the wallet made outside the service and not recorded yet, in the wallet's own words", async () => {
    const user = await signInUser(ctx.svc, { publishableKey: ctx.publishableKey });
    const { publicKey } = user.signIn.wallet;
    const from = await outsider();
    const hash = await from.send([Operation.createAccount({ destination: publicKey, startingBalance: '3' })]);
    assert.equal(
      await ctx.svc.deps.db('transactions').where({ hash }).first(),
      undefined,
      'the service has not recorded it',
    );
    const res = await user.call('getTransaction', 'GET', `/v1/tx/${hash}`);
    assert.equal(res.status, 200, res.text);
    const c = res.body.content;
    assert.deepEqual(
      {
        id: c.id,
        hash: c.hash,
        status: c.status,
        operation: c.operation,
        feeXlm: c.feeXlm,
        resultCode: c.resultCode,
        summary: c.summary,
      },
      {
        id: hash,
        hash,
        status: 'SUCCESS',
        operation: 'createAccount',
        feeXlm: '0.00001',
        resultCode: 'tx_success',
        summary: `Received 3 XLM from ${from.keypair.publicKey().slice(0, 4)}...${from.keypair.publicKey().slice(-4)}`,
      },
    );
    assert.ok(c.ledger >= 1);
    assert.equal(
      Buffer.from(TransactionBuilder.fromXDR(c.envelopeXdr, gatewayOf(ctx.svc).networkPassphrase).hash()).toString(
        'hex',
      ),
      hash,
    );
  });

  test('404 TX_NOT_FOUND: a chain transaction that does not involve the wallet, and a hash nobody knows; 400 for a malformed hash', async () => {
    const user = await signInUser(ctx.svc, { publishableKey: ctx.publishableKey });
    const from = await outsider();
    const elsewhere = await from.send([
      Operation.createAccount({ destination: Keypair.random().publicKey(), startingBalance: '2' }),
    ]);
    for (const hash of [elsewhere, randomBytes(32).toString('hex')]) {
      const res = await user.call('getTransaction', 'GET', `/v1/tx/${hash}`);
      assert.equal(res.status, 404, hash);
      assert.equal(res.body.code, 'TX_NOT_FOUND');
    }
    const bad = await user.call('getTransaction', 'GET', `/v1/tx/${'A'.repeat(64)}`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'VALIDATION_ERROR');
  });
});
