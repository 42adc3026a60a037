// One request, one transaction (issue #23, finding 2): each build takes the wallet's next sequence number from a
// reservation in PostgreSQL (src/domain/transactions/sequences.ts), so N concurrent payments from one wallet are N
// transactions that all land, one per ledger, in sequence order; a number that never lands leaves a gap the next
// transactions step over; an account moved outside the service is caught up with. On the real service
// (PostgreSQL + localnet, a ledger every 200 ms, the confirmation worker every 100 ms).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Account,
  Keypair,
  Operation,
  TransactionBuilder,
  type FeeBumpTransaction,
  type Transaction,
} from '@stellar/stellar-sdk';
import type { App } from '../../src/domain/apps/store';
import { SYSTEM_ACTOR } from '../../src/domain/audit/auditLog';
import { saveFeePolicy, DEFAULT_FEE_POLICY, type FeePolicy } from '../../src/domain/feePolicy/policy';
import { withWalletKeypair } from '../../src/domain/wallets/custody';
import { startTestService, type TestService } from '../support/service';
import { signInUser, type UserClient } from '../support/users';
import { appWithWallet, createAccountWith, eventually, gatewayOf, issuer, payFromIssuer } from '../support/funding';

let svc: TestService;
let app: App;
let creds: Awaited<ReturnType<typeof appWithWallet>>['creds'];

before(async () => {
  svc = await startTestService({ LEDGER_FOLLOWER: 'off', TX_CONFIRM_INTERVAL_MS: '100' }, { closeLedgersEveryMs: 200 });
  ({ app, creds } = await appWithWallet(svc, { settings: { fundingMode: 'immediate' } }));
});
after(async () => {
  await svc?.stop();
});

async function setPolicy(patch: Partial<FeePolicy>): Promise<void> {
  await saveFeePolicy(svc.deps.db, {
    appId: app.id,
    policy: { ...DEFAULT_FEE_POLICY, ...patch },
    actor: SYSTEM_ACTOR,
    at: new Date(),
  });
}

/** A signed-in user whose funded wallet holds `xlm` more XLM, from an outside account. */
async function userWithXlm(xlm = '200'): Promise<{ user: UserClient; walletId: string; publicKey: string }> {
  const user = await signInUser(svc, creds);
  assert.equal(user.signIn.wallet.funded, true);
  const publicKey: string = user.signIn.wallet.publicKey;
  const { keypair: from } = await issuer(svc, []); // a friendbot-funded outside account
  await payFromIssuer(svc, from, publicKey, 'native', xlm);
  const row = await svc.deps.db('wallets').where({ public_key: publicKey }).first('id');
  return { user, walletId: row.id, publicKey };
}

/** A fresh outside account to pay: its balance moves only by what the test sends. */
async function outsideAccount(): Promise<string> {
  const address = Keypair.random().publicKey();
  await createAccountWith(svc, address, '10');
  return address;
}

async function nativeStroops(address: string): Promise<bigint> {
  return (await gatewayOf(svc).loadAccount(address))!.balanceStroops;
}

async function chainSequence(address: string): Promise<bigint> {
  return BigInt((await gatewayOf(svc).loadAccount(address))!.sequence);
}

/** Moves the wallet's sequence number outside the service: a bumpSequence it signs and pays itself. */
async function bumpOutside(walletId: string, publicKey: string, by: bigint): Promise<void> {
  const gw = gatewayOf(svc);
  const current = await chainSequence(publicKey);
  const tx = new TransactionBuilder(new Account(publicKey, current.toString()), {
    fee: '100',
    networkPassphrase: gw.networkPassphrase,
  })
    .addOperation(Operation.bumpSequence({ bumpTo: (current + by).toString() }))
    .setTimeout(60)
    .build();
  await withWalletKeypair(svc.deps, { walletId, purpose: 'test.bump_sequence', actor: SYSTEM_ACTOR }, async (kp) => {
    tx.sign(kp);
  });
  await gw.submitAndConfirm(tx);
}

const pay = (destination: string, amount: string) => ({
  operation: { type: 'payment', destination, asset: 'native', amount },
});

interface Settled {
  id: string;
  status: string;
  result_code: string | null;
  seq_num: string;
  ledger: number;
  created_at: Date;
  sent_at: Date | null;
  confirmed_at: Date | null;
}

/** Waits until every transaction `txIds` names is settled, and answers their rows. */
async function settled(txIds: string[], timeoutMs = 60_000): Promise<Settled[]> {
  let rows: Settled[] = [];
  await eventually(
    `${txIds.length} transactions settle`,
    async () => {
      rows = await svc.deps
        .db('transactions')
        .whereIn('id', txIds)
        .select('id', 'status', 'result_code', 'seq_num', 'ledger', 'created_at', 'sent_at', 'confirmed_at');
      return rows.length === txIds.length && rows.every((r) => r.status !== 'PENDING');
    },
    timeoutMs,
  );
  return rows;
}

/** 50 concurrent runs from one wallet, each with its own Idempotency-Key: 50 transactions, all SUCCESS, in order. */
async function concurrentRuns(amounts: string[], keyPrefix: string): Promise<void> {
  await setPolicy({});
  const { user, publicKey } = await userWithXlm('200');
  const destination = await outsideAccount();
  const before = await nativeStroops(destination);
  const sequenceBefore = await chainSequence(publicKey);

  const answers = await Promise.all(
    amounts.map((amount, i) =>
      user.rawCall('POST', '/v1/tx/run', {
        headers: { 'idempotency-key': `${keyPrefix}-${i}` },
        body: pay(destination, amount),
      }),
    ),
  );
  for (const a of answers) {
    assert.equal(a.status, 200, `${a.status} ${a.text}`);
    assert.ok(['success', 'pending'].includes(a.body.content.status), a.text);
  }
  const txIds = answers.map((a) => a.body.content.txId as string);
  assert.equal(new Set(txIds).size, amounts.length, 'one transaction per request');
  assert.equal(new Set(answers.map((a) => a.body.content.hash)).size, amounts.length, 'distinct hashes');

  const rows = await settled(txIds, 90_000);
  assert.deepEqual(
    rows.filter((r) => r.status !== 'SUCCESS').map((r) => `${r.id} ${r.result_code}`),
    [],
    // On failure, the whole lane: sequence, status, result, ledger, built, sent, confirmed.
    `every transaction succeeded: ${JSON.stringify([...rows].sort((a, b) => Number(BigInt(a.seq_num) - BigInt(b.seq_num))).map((r) => [r.seq_num, r.status, r.result_code, r.ledger, r.created_at, r.sent_at, r.confirmed_at]))}`,
  );
  // The ledger moved by exactly the sum, and the sequence by exactly the count.
  const sum = amounts.reduce((s, a) => s + BigInt(Math.round(Number(a) * 1e7)), 0n);
  assert.equal((await nativeStroops(destination)) - before, sum);
  assert.equal(await chainSequence(publicKey), sequenceBefore + BigInt(amounts.length));
  // In order: sequence numbers sequenceBefore+1.., applied in ledgers that grow with them.
  const bySequence = [...rows].sort((a, b) => (BigInt(a.seq_num) < BigInt(b.seq_num) ? -1 : 1));
  bySequence.forEach((r, i) => assert.equal(BigInt(r.seq_num), sequenceBefore + BigInt(i + 1)));
  for (let i = 1; i < bySequence.length; i++)
    assert.ok(bySequence[i]!.ledger > bySequence[i - 1]!.ledger, 'one per ledger, in sequence order');
  // Each answer that said success named the hash that is on the ledger.
  for (const a of answers.filter((x) => x.body.content.status === 'success')) {
    assert.equal((await gatewayOf(svc).transactionStatus(a.body.content.hash)).status, 'SUCCESS');
  }
}

describe('one request, one transaction', () => {
  test('50 concurrent runs with the same body and distinct keys: 50 transactions, all SUCCESS, the ledger moves by the sum', async () => {
    await concurrentRuns(
      Array.from({ length: 50 }, () => '1'),
      'same-body',
    );
  });

  test('50 concurrent runs with distinct amounts: 50 transactions, all SUCCESS, exactly the sum moved', async () => {
    await concurrentRuns(
      Array.from({ length: 50 }, (_, i) => `0.${String(i + 1).padStart(7, '0')}`),
      'distinct-body',
    );
  });

  test('two builds of the same payment are two transactions with consecutive sequence numbers', async () => {
    await setPolicy({});
    const { user } = await userWithXlm('20');
    const destination = await outsideAccount();
    const [a, b] = await Promise.all([
      user.rawCall('POST', '/v1/tx/build', { body: pay(destination, '1') }),
      user.rawCall('POST', '/v1/tx/build', { body: pay(destination, '1') }),
    ]);
    assert.equal(a.status, 201, a.text);
    assert.equal(b.status, 201, b.text);
    assert.notEqual(a.body.content.txId, b.body.content.txId);
    assert.notEqual(a.body.content.unsignedXdr, b.body.content.unsignedXdr);
    const rows = await svc.deps
      .db('transactions')
      .whereIn('id', [a.body.content.txId, b.body.content.txId])
      .select('seq_num');
    const seqs = rows.map((r: { seq_num: string }) => BigInt(r.seq_num)).sort();
    assert.equal(seqs[1]! - seqs[0]!, 1n);
  });
});

describe('recovery', () => {
  test('a denied number is taken again by the next transaction', async () => {
    const { user, publicKey } = await userWithXlm('20');
    const destination = await outsideAccount();
    const start = await chainSequence(publicKey);
    await setPolicy({ maxFeeStroops: 1n });
    const denied = await user.rawCall('POST', '/v1/tx/run', { body: pay(destination, '1') });
    assert.equal(denied.status, 403, denied.text);
    await setPolicy({});
    const ok = await user.rawCall('POST', '/v1/tx/run', { body: pay(destination, '1') });
    assert.equal(ok.status, 200, ok.text);
    const [row] = await settled([ok.body.content.txId]);
    assert.equal(row!.status, 'SUCCESS');
    assert.equal(BigInt(row!.seq_num), start + 1n);
    assert.equal(await chainSequence(publicKey), start + 1n);
  });

  test('a number that never lands while a later one waits leaves a gap the later one steps over', async () => {
    await setPolicy({});
    const { user, publicKey } = await userWithXlm('20');
    const destination = await outsideAccount();
    const start = await chainSequence(publicKey);
    // A: a client's build (start + 1), about to be submitted; B: a run behind it (start + 2), waiting for its turn.
    const a = await user.rawCall('POST', '/v1/tx/build', { body: pay(destination, '1') });
    assert.equal(a.status, 201, a.text);
    const signedA = await user.rawCall('POST', '/v1/tx/sign', { body: { txId: a.body.content.txId } });
    assert.equal(signedA.status, 200, signedA.text);
    const runB = user.rawCall('POST', '/v1/tx/run', { body: pay(destination, '2') });
    let idB = '';
    await eventually('B waits for its turn', async () => {
      const rows = await svc.deps
        .db('transactions')
        .where({ source_account: publicKey, stage: 'submitted' })
        .whereNotNull('envelope_xdr')
        .select('id');
      idB = rows[0]?.id ?? '';
      return rows.length === 1;
    });
    // A is denied: its number never reaches the chain.
    await setPolicy({ maxFeeStroops: 1n });
    const deniedA = await user.rawCall('POST', '/v1/tx/submit', {
      body: { signedXdr: signedA.body.content.signedXdr },
    });
    assert.equal(deniedA.status, 403, deniedA.text);
    await setPolicy({});
    const b = await runB;
    assert.equal(b.status, 200, b.text);
    assert.equal(b.body.content.txId, idB);
    const [row] = await settled([idB]);
    assert.equal(row!.status, 'SUCCESS', JSON.stringify(row));
    assert.equal(BigInt(row!.seq_num), start + 2n);
    assert.equal(await chainSequence(publicKey), start + 2n, 'start + 1 was stepped over');
  });

  test('the account moved outside the service: a stale build fails tx_bad_seq, the next run takes a number after the chain', async () => {
    await setPolicy({});
    const { user, walletId, publicKey } = await userWithXlm('20');
    const destination = await outsideAccount();
    const built = await user.rawCall('POST', '/v1/tx/build', { body: pay(destination, '1') });
    assert.equal(built.status, 201, built.text);
    const signed = await user.rawCall('POST', '/v1/tx/sign', { body: { txId: built.body.content.txId } });
    assert.equal(signed.status, 200, signed.text);
    await bumpOutside(walletId, publicKey, 10n);
    const stale = await user.rawCall('POST', '/v1/tx/submit', { body: { signedXdr: signed.body.content.signedXdr } });
    assert.equal(stale.status, 422, stale.text);
    assert.equal(stale.body.code, 'TX_SUBMIT_FAILED');
    assert.equal(stale.body.details?.resultCode ?? stale.body.resultCode, 'tx_bad_seq');
    const moved = await chainSequence(publicKey);
    const ok = await user.rawCall('POST', '/v1/tx/run', { body: pay(destination, '1') });
    assert.equal(ok.status, 200, ok.text);
    const [row] = await settled([ok.body.content.txId]);
    assert.equal(row!.status, 'SUCCESS');
    assert.equal(BigInt(row!.seq_num), moved + 1n);
  });

  test('a run overtaken between build and send takes a new number, signs again and lands once', async () => {
    await setPolicy({});
    const { user, walletId, publicKey } = await userWithXlm('20');
    const destination = await outsideAccount();
    const before = await nativeStroops(destination);
    const gw = gatewayOf(svc);
    const submit = gw.submit;
    let overtaken = false;
    // The first envelope of this wallet reaches the RPC only after the account moved outside the service.
    gw.submit = async (tx: Transaction | FeeBumpTransaction) => {
      const inner = 'innerTransaction' in tx ? tx.innerTransaction : tx;
      if (!overtaken && inner.source === publicKey) {
        overtaken = true;
        await bumpOutside(walletId, publicKey, 1n);
      }
      return submit(tx);
    };
    try {
      const answer = await user.rawCall('POST', '/v1/tx/run', { body: pay(destination, '1') });
      assert.equal(answer.status, 200, answer.text);
      const [row] = await settled([answer.body.content.txId]);
      assert.equal(row!.status, 'SUCCESS');
      assert.ok(overtaken);
    } finally {
      gw.submit = submit;
    }
    assert.equal((await nativeStroops(destination)) - before, 10_000_000n, 'paid once');
  });
});
