// The whole sponsored path on the real service (PostgreSQL + localnet, a ledger every 200 ms), as a user lives it:
// sign in -> wallet funded -> receive demo USDC from the app's distribution wallet -> pay another user -> both
// histories show it SUCCESS -> the gas wallet paid every fee and the user's XLM did not move.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { updateAppSettings, type App } from '../../src/domain/apps/store';
import { issueDemoUsdc } from '../../src/domain/treasury/demoUsdc';
import { appWalletFor } from '../../src/domain/wallets/treasuryWallets';
import { withWalletKeypair } from '../../src/domain/wallets/custody';
import { parseAsset } from '../../src/infra/stellar/gateway';
import { SYSTEM_ACTOR } from '../../src/domain/audit/auditLog';
import { startTestService, type TestService } from '../support/service';
import { signInUser, type UserClient } from '../support/users';
import { appWithWallet, eventually, gatewayOf } from '../support/funding';

let svc: TestService;
let app: App;
let usdc: string;
let alice: UserClient;
let bob: UserClient;

before(async () => {
  svc = await startTestService({ LEDGER_FOLLOWER: 'on' }, { closeLedgersEveryMs: 200 });
  const setup = await appWithWallet(svc);
  ({ asset: usdc } = await issueDemoUsdc(svc.deps, setup.app));
  app = (await updateAppSettings(svc.deps.db, setup.app.id, { fundingMode: 'immediate' }))!;
  alice = await signInUser(svc, setup.creds);
  bob = await signInUser(svc, setup.creds);
});
after(async () => {
  await svc?.stop();
});

async function balances(user: UserClient): Promise<Record<string, string>> {
  const res = await user.call('getWalletBalances', 'GET', '/v1/wallet/balances');
  assert.equal(res.status, 200, res.text);
  return Object.fromEntries(
    res.body.content.balances.map((b: { asset: string; balance: string }) => [b.asset, b.balance]),
  );
}

async function history(user: UserClient): Promise<any[]> {
  const res = await user.call('getTxHistory', 'GET', '/v1/tx/history');
  assert.equal(res.status, 200, res.text);
  return res.body.content.records;
}

describe('scenario: sign in, receive USDC, pay another user, zero XLM spent', () => {
  test('runs end to end', async () => {
    // 1. both wallets were funded at sign-in (Immediate mode), with the demo USDC trustline
    assert.equal(alice.signIn.wallet.funded, true, JSON.stringify(alice.signIn.wallet));
    assert.equal(bob.signIn.wallet.funded, true);
    const aliceKey: string = alice.signIn.wallet.publicKey;
    const bobKey: string = bob.signIn.wallet.publicKey;

    // 2. the distribution wallet sends Alice 50 USDC (the app's own payment, signed server-side)
    const gw = gatewayOf(svc);
    const distribution = (await appWalletFor(svc.deps.db, app.id, app.network, 'distribution'))!;
    const source = (await gw.loadAccount(distribution.publicKey))!;
    const grant = new TransactionBuilder(new Account(distribution.publicKey, source.sequence), {
      fee: '100',
      networkPassphrase: gw.networkPassphrase,
    })
      .addOperation(Operation.payment({ destination: aliceKey, asset: parseAsset(usdc), amount: '50' }))
      .setTimeout(60)
      .build();
    await withWalletKeypair(
      svc.deps,
      { walletId: distribution.id, purpose: 'test.grant', actor: SYSTEM_ACTOR },
      async (kp) => grant.sign(kp),
    );
    await gw.submitAndConfirm(grant);
    assert.equal((await balances(alice))[usdc], '50');
    const aliceXlmBefore = (await balances(alice)).native;
    const gas = (await appWalletFor(svc.deps.db, app.id, app.network, 'gas'))!;
    const gasBefore = (await gw.loadAccount(gas.publicKey))!.balanceStroops;

    // 3. Alice pays Bob 10 USDC: build, sign, submit (the three-step path)
    const built = await alice.call('buildTransaction', 'POST', '/v1/tx/build', {
      body: {
        operation: { type: 'payment', destination: bobKey, asset: usdc, amount: '10' },
        memo: { type: 'text', value: 'lunch' },
      },
    });
    assert.equal(built.status, 201, built.text);
    assert.equal(built.body.content.status, 'built');
    const signed = await alice.call('signTransaction', 'POST', '/v1/tx/sign', {
      body: { txId: built.body.content.txId },
    });
    assert.equal(signed.status, 200, signed.text);
    const submitted = await alice.call('submitTransaction', 'POST', '/v1/tx/submit', {
      body: { signedXdr: signed.body.content.signedXdr },
    });
    assert.equal(submitted.status, 200, submitted.text);
    assert.equal(submitted.body.content.status, 'success', JSON.stringify(submitted.body));
    assert.equal(submitted.body.content.resultCode, 'tx_success');
    const hash: string = submitted.body.content.hash;

    // 4. and once more in one call (runTransaction)
    const ran = await alice.call('runTransaction', 'POST', '/v1/tx/run', {
      body: { operation: { type: 'payment', destination: bobKey, asset: usdc, amount: '2.5' } },
    });
    assert.equal(ran.status, 200, ran.text);
    assert.equal(ran.body.content.status, 'success', JSON.stringify(ran.body));

    // 5. the ledger: USDC moved, Alice's XLM did not, the gas wallet paid both fees
    const after = await balances(alice);
    assert.equal(after[usdc], '37.5');
    assert.equal(after.native, aliceXlmBefore, 'the user paid no fee');
    assert.equal((await balances(bob))[usdc], '12.5');
    const fees = await svc.deps
      .db('transactions')
      .whereIn('hash', [hash, ran.body.content.hash])
      .select('fee_source', 'fee_stroops', 'status');
    assert.equal(fees.length, 2);
    for (const f of fees) assert.deepEqual([f.fee_source, f.status], [gas.publicKey, 'SUCCESS']);
    const paid = fees.reduce((sum, f) => sum + BigInt(f.fee_stroops), 0n);
    assert.equal(
      gasBefore - (await gw.loadAccount(gas.publicKey))!.balanceStroops,
      paid,
      'the gas wallet paid exactly the recorded fees',
    );

    // 6. both histories show the payment SUCCESS, each from its own side
    const aliceRecord = (await history(alice)).find((r) => r.hash === hash);
    assert.ok(aliceRecord, 'in the sender history');
    assert.equal(aliceRecord.status, 'SUCCESS');
    assert.equal(aliceRecord.operation, 'payment');
    assert.match(aliceRecord.summary, /^Sent 10 USDC to /);
    await eventually('the payment is in the receiver history', async () =>
      (await history(bob)).some((r) => r.hash === hash),
    );
    const bobRecord = (await history(bob)).find((r) => r.hash === hash);
    assert.equal(bobRecord.status, 'SUCCESS');
    assert.match(bobRecord.summary, /^Received 10 USDC from /);
    const lookedUp = await bob.call('getTransaction', 'GET', `/v1/tx/${hash}`);
    assert.equal(lookedUp.status, 200, lookedUp.text);
    assert.equal(lookedUp.body.content.status, 'SUCCESS');

    // 7. the events of the payment
    await eventually('payment.received is recorded', async () => {
      const n = await svc.deps
        .db('outbox_events')
        .where({ type: 'payment.received' })
        .whereRaw(`data->>'txHash' = ?`, [hash])
        .count<{ count: string }[]>('* as count');
      return Number(n[0]!.count) === 1;
    });
    const events = await svc.deps
      .db('outbox_events')
      .whereRaw(`data->>'txHash' = ? or data->>'hash' = ?`, [hash, hash])
      .select('type', 'data');
    assert.deepEqual(events.map((e) => e.type).sort(), ['payment.received', 'payment.sent', 'stellar.tx']);
    const sent = events.find((e) => e.type === 'payment.sent')!.data;
    assert.deepEqual([sent.from, sent.to, sent.asset, sent.amount], [aliceKey, bobKey, usdc, '10']);
  });
});
