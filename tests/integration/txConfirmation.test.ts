// The confirmation worker (src/domain/transactions/confirmation.ts) on the real service: a submission answered
// `pending` ends SUCCESS with its events; a crash after the fee-bump was recorded but before it was sent is resent;
// one whose time bound passed unapplied ends FAILED tx_too_late; a claim that never recorded an envelope is released
// with the day's operations; a built transaction never submitted expires.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import type { App } from '../../src/domain/apps/store';
import { reserveDailyOps, opsUsedToday } from '../../src/domain/feePolicy/dailyOps';
import { appWalletFor } from '../../src/domain/wallets/treasuryWallets';
import { confirmDue } from '../../src/domain/transactions/confirmation';
import { sponsorFee } from '../../src/domain/transactions/feeBump';
import { findTransaction, type TxRecord } from '../../src/domain/transactions/store';
import { startTestService, type TestService } from '../support/service';
import { signInUser, type UserClient } from '../support/users';
import { appWithWallet, eventually, gatewayOf } from '../support/funding';

let svc: TestService;
let app: App;
let creds: Awaited<ReturnType<typeof appWithWallet>>['creds'];
let destination: string;

before(async () => {
  svc = await startTestService({ TX_CONFIRM_WAIT_MS: '0' }, { closeLedgersEveryMs: 200 });
  const setup = await appWithWallet(svc, { settings: { fundingMode: 'immediate', startingBalanceXlm: '5' } });
  ({ app, creds } = setup);
  destination = setup.appWallet.publicKey;
});
after(async () => {
  await svc?.stop();
});

const pay = (amount: string) => ({ operation: { type: 'payment', destination, asset: 'native', amount } });

async function fundedUser(): Promise<UserClient> {
  const user = await signInUser(svc, creds);
  assert.equal(user.signIn.wallet.funded, true);
  return user;
}

/** A transaction built and signed through the API, not submitted: its record and signed inner transaction. */
async function signedRecord(user: UserClient, amount: string): Promise<{ record: TxRecord; inner: Transaction }> {
  const built = await user.call('buildTransaction', 'POST', '/v1/tx/build', { body: pay(amount) });
  assert.equal(built.status, 201, built.text);
  const signed = await user.call('signTransaction', 'POST', '/v1/tx/sign', { body: { txId: built.body.content.txId } });
  assert.equal(signed.status, 200, signed.text);
  const inner = TransactionBuilder.fromXDR(
    signed.body.content.signedXdr,
    gatewayOf(svc).networkPassphrase,
  ) as Transaction;
  return { record: (await findTransaction(svc.deps.db, built.body.content.txId))!, inner };
}

/** Puts a record in the state a crash leaves after step 4: claimed, fee-bump signed and recorded, nothing sent. */
async function recordedButNotSent(record: TxRecord, inner: Transaction): Promise<string> {
  const gas = (await appWalletFor(svc.deps.db, app.id, app.network, 'gas'))!;
  const bump = await sponsorFee(svc.deps, {
    gasWallet: gas,
    inner,
    networkPassphrase: gatewayOf(svc).networkPassphrase,
    actor: { type: 'user', id: record.userId! },
  });
  const hash = Buffer.from(bump.hash()).toString('hex');
  const now = new Date();
  await svc.deps
    .db('transactions')
    .where({ id: record.id })
    .update({
      stage: 'submitted',
      submitted_at: now,
      hash,
      envelope_xdr: bump.toXDR(),
      fee_stroops: String(bump.fee),
      fee_source: gas.publicKey,
      signed_xdr: inner.toXDR(),
      next_check_at: new Date(now.getTime() + 60_000), // the service's own worker leaves it to this test
    });
  return hash;
}

describe('the confirmation worker', () => {
  test('a submission answered pending ends SUCCESS with the ledger, the fee charged and its events', async () => {
    const user = await fundedUser();
    const ran = await user.call('runTransaction', 'POST', '/v1/tx/run', { body: pay('1') });
    assert.equal(ran.status, 200, ran.text);
    assert.equal(ran.body.content.status, 'pending');
    const hash: string = ran.body.content.hash;
    await eventually(
      'the record is SUCCESS',
      async () => (await findTransaction(svc.deps.db, ran.body.content.txId))?.status === 'SUCCESS',
    );
    const record = (await findTransaction(svc.deps.db, ran.body.content.txId))!;
    assert.equal(record.stage, 'confirmed');
    assert.equal(record.resultCode, 'tx_success');
    assert.ok(record.ledger && record.ledger > 0);
    assert.equal(record.feeStroops, 200n, 'a one-operation fee-bump at the base fee');
    const looked = await user.call('getTransaction', 'GET', `/v1/tx/${hash}`);
    assert.equal(looked.body.content.status, 'SUCCESS');
    assert.equal(looked.body.content.ledger, record.ledger);
    const events = await svc.deps
      .db('outbox_events')
      .whereRaw(`data->>'txHash' = ? or data->>'hash' = ?`, [hash, hash])
      .select('type');
    assert.deepEqual(events.map((e) => e.type).sort(), ['payment.sent', 'stellar.tx']);
  });

  test('a fee-bump recorded but never sent (crash) is resent by the worker and lands once', async () => {
    const user = await fundedUser();
    const { record, inner } = await signedRecord(user, '1');
    const hash = await recordedButNotSent(record, inner);
    const due = { ...svc.deps, clock: { now: () => new Date(Date.now() + 61_000) } };
    await confirmDue(due); // not on the chain, still valid: resent
    await eventually('the resent fee-bump is confirmed', async () => {
      await confirmDue(due);
      return (await findTransaction(svc.deps.db, record.id))?.status === 'SUCCESS';
    });
    assert.equal((await findTransaction(svc.deps.db, record.id))!.hash, hash);
    const events = await svc.deps.db('outbox_events').whereRaw(`data->>'hash' = ?`, [hash]).select('type');
    assert.deepEqual(
      events.map((e) => e.type),
      ['stellar.tx'],
      'one stellar.tx however many passes saw it',
    );
  });

  test('a recorded fee-bump past its time bound unapplied ends FAILED tx_too_late', async () => {
    const user = await fundedUser();
    const { record, inner } = await signedRecord(user, '1');
    await recordedButNotSent(record, inner);
    const late = { ...svc.deps, clock: { now: () => new Date(record.validUntil!.getTime() + 11_000) } };
    await confirmDue(late);
    const after = (await findTransaction(svc.deps.db, record.id))!;
    assert.deepEqual([after.status, after.stage, after.resultCode], ['FAILED', 'failed', 'tx_too_late']);
  });

  test('a claim with no envelope (the claimer died before signing the fee-bump) is released with its operations', async () => {
    const user = await fundedUser();
    const { record } = await signedRecord(user, '1');
    const claimedAt = new Date();
    assert.equal(
      await reserveDailyOps(svc.deps.db, { appId: app.id, userId: user.userId, at: claimedAt, ops: 1, cap: 10 }),
      true,
    );
    await svc.deps
      .db('transactions')
      .where({ id: record.id })
      // Due a minute from now, so the service's own worker leaves it to this test's pass (run a minute ahead).
      .update({ stage: 'submitted', submitted_at: claimedAt, next_check_at: new Date(claimedAt.getTime() + 60_000) });
    await confirmDue({ ...svc.deps, clock: { now: () => new Date(claimedAt.getTime() + 61_000) } });
    const after = (await findTransaction(svc.deps.db, record.id))!;
    assert.deepEqual([after.status, after.stage], ['PENDING', 'signed']);
    assert.equal(await opsUsedToday(svc.deps.db, { appId: app.id, userId: user.userId, at: claimedAt }), 0);
    // and it can be submitted again
    const submitted = await user.call('submitTransaction', 'POST', '/v1/tx/submit', {
      body: { signedXdr: after.signedXdr },
    });
    assert.equal(submitted.status, 200, submitted.text);
  });

  test('a built transaction never submitted expires FAILED tx_too_late after its time bound', async () => {
    const user = await fundedUser();
    const built = await user.call('buildTransaction', 'POST', '/v1/tx/build', {
      body: { ...pay('1'), timeoutSeconds: 10 },
    });
    const record = (await findTransaction(svc.deps.db, built.body.content.txId))!;
    await confirmDue({ ...svc.deps, clock: { now: () => new Date(record.validUntil!.getTime() + 11_000) } });
    const after = (await findTransaction(svc.deps.db, record.id))!;
    assert.deepEqual([after.status, after.resultCode], ['FAILED', 'tx_too_late']);
    const history = await user.call('getTxHistory', 'GET', '/v1/tx/history');
    assert.equal(history.body.content.records.find((r: { id: string }) => r.id === record.id).status, 'FAILED');
  });
});
