// submitTransaction (POST /v1/tx/submit): submit a signed transaction, fee sponsored. Shared set-up: feeBump.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Asset, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { gatewayOf } from '../../support/funding';
import {
  appWalletKey,
  buildPaymentXdr,
  feeBumpsSigned,
  fundedUser,
  pay,
  setPolicy,
  signedPayment,
  svc,
  useService,
  waitForSequence,
} from './feeBump.setup';

describe('submitTransaction', () => {
  useService();

  describe('submission reaches the chain once', () => {
    test('50 parallel submissions of one signed XDR (no key): signed and sent once, every answer names the same hash', async () => {
      await setPolicy({});
      const user = await fundedUser();
      const signedXdr = await signedPayment(user);
      const gw = gatewayOf(svc);
      const seqBefore = BigInt((await gw.loadAccount(user.signIn.wallet.publicKey))!.sequence);
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => user.rawCall('POST', '/v1/tx/submit', { body: { signedXdr } })),
      );
      const ok = answers.filter((a) => a.status === 200);
      assert.ok(ok.length >= 1, answers.map((a) => a.status).join(','));
      for (const a of answers) assert.ok([200, 409].includes(a.status), `${a.status} ${a.text}`);
      assert.equal(new Set(ok.map((a) => a.body.content.hash)).size, 1);
      assert.equal(await feeBumpsSigned(user), 1, 'one fee-bump signed');
      await waitForSequence(user, seqBefore + 1n);
    });
  });

  describe('signed XDR checks', () => {
    test('a transaction of another account, a fee-bump, garbage, or one not signed by the wallet: 400 TX_INVALID_SIGNED_XDR', async () => {
      const user = await fundedUser();
      const gw = gatewayOf(svc);
      const stranger = Keypair.random();
      const foreign = new TransactionBuilder(new Account(stranger.publicKey(), '1'), {
        fee: '100',
        networkPassphrase: gw.networkPassphrase,
      })
        .addOperation(Operation.payment({ destination: appWalletKey, asset: Asset.native(), amount: '1' }))
        .setTimeout(60)
        .build();
      foreign.sign(stranger);
      const unsignedOwn = await buildPaymentXdr(user);
      for (const signedXdr of [foreign.toXDR(), 'AAAA', unsignedOwn]) {
        const res = await user.call('submitTransaction', 'POST', '/v1/tx/submit', { body: { signedXdr } });
        assert.equal(res.status, 400, res.text);
        assert.equal(res.body.code, 'TX_INVALID_SIGNED_XDR');
      }
      const signedOwn = await signedPayment(user);
      const bump = TransactionBuilder.buildFeeBumpTransaction(
        stranger,
        '200',
        TransactionBuilder.fromXDR(signedOwn, gw.networkPassphrase) as any,
        gw.networkPassphrase,
      );
      const res = await user.call('submitTransaction', 'POST', '/v1/tx/submit', { body: { signedXdr: bump.toXDR() } });
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'TX_INVALID_SIGNED_XDR');
    });

    test('a payment that fails on the ledger answers 422 TX_SUBMIT_FAILED with resultCode and is FAILED in history', async () => {
      await setPolicy({});
      const user = await fundedUser();
      const res = await user.rawCall('POST', '/v1/tx/run', { body: pay('1000') });
      assert.equal(res.status, 422, res.text);
      assert.equal(res.body.code, 'TX_SUBMIT_FAILED');
      assert.equal(res.body.resultCode, 'op_underfunded');
      const history = await user.call('getTxHistory', 'GET', '/v1/tx/history');
      const failed = history.body.content.records.find((r: any) => r.status === 'FAILED');
      assert.equal(failed.resultCode, 'op_underfunded');
    });
  });
});
