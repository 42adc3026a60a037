// The ledger follower on the service's localnet: transactions made outside the service that touch its wallets appear
// in their histories (received for a destination, sent for a source), the service's own transactions gain the
// recipient's row, each payment into a wallet emits one payment.received, and reading the same ledgers again (a
// rewound position, a restart below the RPC's retention window, one transaction per page) adds nothing twice.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Asset, Keypair, Operation, TransactionBuilder, type xdr } from '@stellar/stellar-sdk';
import type { App } from '../../src/domain/apps/store';
import { SYSTEM_ACTOR } from '../../src/domain/audit/auditLog';
import { shortAddress } from '../../src/domain/transactions/describe';
import { listWalletHistory } from '../../src/domain/transactions/history';
import { followInBackground } from '../support/follower';
import { insertTransaction } from '../../src/domain/transactions/store';
import { withWalletKeypair } from '../../src/domain/wallets/custody';
import type { WalletRecord } from '../../src/domain/wallets/store';
import { TransactionRejectedError } from '../../src/infra/stellar/errors';
import { capturingLogger } from '../support/log';
import { startTestService, type TestService } from '../support/service';
import { appWithWallet, eventually, gatewayOf, userWallet } from '../support/funding';
import { newTx } from '../support/history';

let svc: TestService;
let app: App;

before(async () => {
  svc = await startTestService({}, { closeLedgersEveryMs: 50 });
  ({ app } = await appWithWallet(svc, { settings: { fundingMode: 'deferred' }, funded: false }));
});
after(async () => {
  await svc?.stop();
});

/** Builds, signs (by `signer`, or by the source's wallet key) and submits a transaction from `source`. */
async function send(
  source: string,
  ops: xdr.Operation[],
  signer: Keypair | WalletRecord,
): Promise<{ hash: string; tx: ReturnType<TransactionBuilder['build']> }> {
  const gw = gatewayOf(svc);
  const account = (await gw.loadAccount(source))!;
  const builder = new TransactionBuilder(new Account(source, account.sequence), {
    fee: '100',
    networkPassphrase: gw.networkPassphrase,
  }).setTimeout(60);
  for (const op of ops) builder.addOperation(op);
  const tx = builder.build();
  if (signer instanceof Keypair) tx.sign(signer);
  else
    await withWalletKeypair(svc.deps, { walletId: signer.id, purpose: 'test.sign', actor: SYSTEM_ACTOR }, async (kp) =>
      tx.sign(kp),
    );
  return { hash: Buffer.from(tx.hash()).toString('hex'), tx };
}

async function submit(tx: ReturnType<TransactionBuilder['build']>): Promise<number> {
  return (await gatewayOf(svc).submitAndConfirm(tx)).ledger;
}

const followerAt = async () =>
  (await svc.deps.db('ledger_followers').where({ network: 'testnet' }).first('next_ledger'))?.next_ledger as
    number | undefined;

describe('the ledger follower', () => {
  let w1: WalletRecord;
  let w2: WalletRecord;
  let outsider: Keypair;
  const hashes: Record<string, string> = {};
  let lastLedger = 0;

  async function snapshot() {
    const db = svc.deps.db;
    return {
      transactions: await db('transactions')
        .whereIn('hash', Object.values(hashes))
        .orderBy('hash')
        .select('id', 'hash', 'origin', 'status', 'stage', 'app_id', 'wallet_id', 'ledger', 'result_code'),
      history: await db('tx_history')
        .whereIn('wallet_id', [w1.id, w2.id])
        .orderBy(['wallet_id', 'transaction_id'])
        .select('wallet_id', 'transaction_id', 'direction', 'summary'),
      counts: await db('wallet_history_counts')
        .whereIn('wallet_id', [w1.id, w2.id])
        .orderBy('wallet_id')
        .select('wallet_id', 'records'),
      events: await db('outbox_events')
        .where({ type: 'payment.received' })
        .whereRaw(`data->>'toWalletId' = any(?)`, [[w1.id, w2.id]])
        .orderBy('id')
        .select('app_id', 'data'),
    };
  }

  test("external payments appear as received, the service's own transaction gains the recipient's row, one event per payment", async () => {
    const { log, lines } = capturingLogger('info');
    const stop = followInBackground({ ...svc.deps, log }, { intervalMs: 50 });
    try {
      w1 = await userWallet(svc, app);
      w2 = await userWallet(svc, app);
      outsider = Keypair.random();
      await gatewayOf(svc).fundWithFriendbot(outsider.publicKey());
      await eventually('the follower has a position', async () => (await followerAt()) !== undefined);
      const x = outsider.publicKey();

      // 1. an account created for w1 by an outsider; 2. one transaction paying w1 and creating w2
      const one = await send(
        x,
        [Operation.createAccount({ destination: w1.publicKey, startingBalance: '10' })],
        outsider,
      );
      hashes.created = one.hash;
      await submit(one.tx);
      const two = await send(
        x,
        [
          Operation.payment({ destination: w1.publicKey, asset: Asset.native(), amount: '2.5' }),
          Operation.createAccount({ destination: w2.publicKey, startingBalance: '4' }),
        ],
        outsider,
      );
      hashes.both = two.hash;
      await submit(two.tx);
      // 3. a transaction the service knows (recorded before submission, as the service does): w2 is paid
      const three = await send(
        x,
        [Operation.payment({ destination: w2.publicKey, asset: Asset.native(), amount: '1' })],
        outsider,
      );
      hashes.known = three.hash;
      await svc.deps.db.transaction((trx) =>
        insertTransaction(
          trx,
          newTx(app.id, null, new Date(), { hash: three.hash, origin: 'client', sourceAccount: x }),
          [],
        ),
      );
      await submit(three.tx);
      // 4. a payment that fails in the ledger (underfunded): w1 received nothing, nothing is recorded
      const four = await send(
        x,
        [Operation.payment({ destination: w1.publicKey, asset: Asset.native(), amount: '900000' })],
        outsider,
      );
      hashes.failed = four.hash;
      await assert.rejects(submit(four.tx), TransactionRejectedError);
      // 5. w1 pays the outsider (signed with w1's own key): sent, and no event
      const five = await send(
        w1.publicKey,
        [Operation.payment({ destination: x, asset: Asset.native(), amount: '1' })],
        w1,
      );
      hashes.sent = five.hash;
      lastLedger = await submit(five.tx);

      await eventually('the follower has read the last ledger', async () => ((await followerAt()) ?? 0) > lastLedger);
      assert.ok(
        lines.some((l) => l.includes('ledger follower starts at the latest ledger')),
        'the first start is logged',
      );
    } finally {
      await stop();
    }

    // Ledgers here close many times a second, and a history row's time is its ledger's close time (whole seconds):
    // rows of one second tie, so the order is checked by the history tests; here, what each history holds.
    const short = shortAddress(outsider.publicKey());
    const [h1, h2] = await Promise.all([
      listWalletHistory(svc.deps.db, { walletId: w1.id, limit: 20, offset: 0 }),
      listWalletHistory(svc.deps.db, { walletId: w2.id, limit: 20, offset: 0 }),
    ]);
    const rows = (page: typeof h1) => page.records.map((r) => [r.hash, r.status, r.operation, r.summary]).sort();
    assert.deepEqual(
      rows(h1),
      [
        [hashes.sent, 'SUCCESS', 'payment', `Sent 1 XLM to ${short}`],
        [hashes.both, 'SUCCESS', 'payment', `Received 2.5 XLM from ${short}`],
        [hashes.created, 'SUCCESS', 'createAccount', `Received 10 XLM from ${short}`],
      ].sort(),
    );
    assert.equal(h1.total, 3);
    assert.deepEqual(
      rows(h2),
      [
        [hashes.known, 'SUCCESS', 'payment', `Received 1 XLM from ${short}`],
        [hashes.both, 'SUCCESS', 'payment', `Received 4 XLM from ${short}`],
      ].sort(),
    );
    assert.equal(h2.total, 2);
    const sent = h1.records.find((r) => r.hash === hashes.sent)!;
    assert.equal(sent.feeXlm, '0.00001', 'the fee charged, from the result');

    const { transactions, events } = await snapshot();
    const byHash = new Map(transactions.map((t) => [t.hash, t]));
    assert.equal(byHash.get(hashes.failed), undefined, 'a failed payment into a wallet is not its history');
    for (const key of ['created', 'both', 'sent']) {
      const t = byHash.get(hashes[key]!)!;
      assert.deepEqual(
        [t.origin, t.status, t.stage, t.app_id, t.result_code],
        ['external', 'SUCCESS', 'confirmed', app.id, 'tx_success'],
        key,
      );
      assert.ok(t.ledger > 0);
    }
    assert.equal(byHash.get(hashes.sent)!.wallet_id, w1.id, "w1's own transaction names it as source");
    assert.equal(byHash.get(hashes.created)!.wallet_id, null);
    assert.equal(byHash.get(hashes.known)!.origin, 'client', 'the known transaction is not recorded again');

    const summary = events.map((e) => [e.data.txHash, e.data.toWalletId, e.data.amount]).sort();
    assert.deepEqual(
      summary,
      [
        [hashes.created, w1.id, '10'],
        [hashes.both, w1.id, '2.5'],
        [hashes.both, w2.id, '4'],
        [hashes.known, w2.id, '1'],
      ].sort(),
    );
    // stellar.tx once per outside transaction recorded (not for the known one, which its submitter reports)
    const seen = await svc.deps
      .db('outbox_events')
      .where({ app_id: app.id, type: 'stellar.tx' })
      .whereRaw(`data->>'hash' = any(?)`, [[hashes.created, hashes.both, hashes.sent, hashes.known, hashes.failed]])
      .select('data');
    assert.deepEqual(
      seen.map((e: { data: { hash: string } }) => e.data.hash).sort(),
      [hashes.created, hashes.both, hashes.sent].sort(),
    );
    const both = seen.find((e: { data: { hash: string } }) => e.data.hash === hashes.both)!.data;
    assert.deepEqual(
      [both.network, both.sourceAccount, both.feeBump, both.operations.map((o: { type: string }) => o.type)],
      ['testnet', outsider.publicKey(), false, ['payment', 'createAccount']],
    );
    assert.ok(both.envelopeXdr && both.resultXdr && both.ledger > 0);

    const ev = events.find((e) => e.data.txHash === hashes.both && e.data.toWalletId === w1.id)!;
    assert.equal(ev.app_id, app.id);
    assert.deepEqual(ev.data, {
      txHash: hashes.both,
      toWalletId: w1.id,
      from: outsider.publicKey(),
      to: w1.publicKey,
      asset: 'native',
      amount: '2.5',
      ledger: ev.data.ledger,
    });
    assert.equal(typeof ev.data.ledger, 'number');
  });

  test('reading the same ledgers again (a position below the retention window, one transaction per page) adds nothing', async () => {
    const before = await snapshot();
    assert.equal(before.events.length, 4);
    await svc.deps.db('ledger_followers').where({ network: 'testnet' }).update({ next_ledger: 0 });
    const { log, lines } = capturingLogger('info');
    const stop = followInBackground({ ...svc.deps, log }, { intervalMs: 50, pageSize: 1 });
    try {
      await eventually(
        'the follower has read the ledgers again',
        async () => ((await followerAt()) ?? 0) > lastLedger,
        60_000,
      );
    } finally {
      await stop();
    }
    assert.ok(
      lines.some((l) => l.includes('fell out of the RPC retention window')),
      'the restart at the oldest ledger is logged',
    );
    assert.deepEqual(await snapshot(), before);
  });
});
