// Security finding 1 (issue #23): outside chain data must never stop the ledger follower. A payment to a service
// wallet with a text memo holding NUL, or bytes that are not UTF-8, used to make every later follower step fail
// (PostgreSQL refuses U+0000), so no received payment reached any history on that network again. Now such memos are
// stored in their display form with the raw bytes kept, and a transaction that still cannot be recorded is set aside
// in chain_quarantine while the follower goes on. Through localnet, from an account the service never saw.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Keypair, Memo, Operation, Asset, TransactionBuilder } from '@stellar/stellar-sdk';
import type { App } from '../../src/domain/apps/store';
import { followInBackground } from '../support/follower';
import type { WalletRecord } from '../../src/domain/wallets/store';
import { capturingLogger } from '../support/log';
import { startTestService, type TestService } from '../support/service';
import { appWithWallet, eventually, gatewayOf, userWallet } from '../support/funding';

let svc: TestService;
let app: App;
let wallet: WalletRecord;
let outsider: Keypair;

before(async () => {
  svc = await startTestService({}, { closeLedgersEveryMs: 50 });
  ({ app } = await appWithWallet(svc, { settings: { fundingMode: 'deferred' }, funded: false }));
  wallet = await userWallet(svc, app);
  outsider = Keypair.random();
  const gw = gatewayOf(svc);
  await gw.fundWithFriendbot(outsider.publicKey());
  await send([Operation.createAccount({ destination: wallet.publicKey, startingBalance: '10' })]);
});
after(async () => {
  await svc?.stop();
});

/** An outside payment (or other operations) from the outsider, with `memo`; answers its hash once applied. */
async function send(ops: ReturnType<typeof Operation.payment>[], memo?: Memo): Promise<string> {
  const gw = gatewayOf(svc);
  const account = (await gw.loadAccount(outsider.publicKey()))!;
  const builder = new TransactionBuilder(new Account(outsider.publicKey(), account.sequence), {
    fee: '100',
    networkPassphrase: gw.networkPassphrase,
    ...(memo ? { memo } : {}),
  }).setTimeout(60);
  for (const op of ops) builder.addOperation(op);
  const tx = builder.build();
  tx.sign(outsider);
  await gw.submitAndConfirm(tx);
  return Buffer.from(tx.hash()).toString('hex');
}

const pay = (amount: string) => Operation.payment({ destination: wallet.publicKey, asset: Asset.native(), amount });

async function historyRow(
  hash: string,
): Promise<{ memo: string | null; memo_base64: string | null; summary: string } | undefined> {
  return svc.deps
    .db('transactions as t')
    .join('tx_history as h', 'h.transaction_id', 't.id')
    .where({ 't.hash': hash, 'h.wallet_id': wallet.id })
    .first('t.memo', 't.memo_base64', 'h.summary');
}

describe('outside chain data never stops the ledger follower', () => {
  test('payments with a NUL memo, an invalid UTF-8 memo and a plain one all reach the history and payment.received', async () => {
    const { log, lines } = capturingLogger('info');
    const stop = followInBackground({ ...svc.deps, log }, { intervalMs: 50 });
    try {
      const nul = await send([pay('1')], Memo.text(Buffer.from([0x61, 0x00, 0x62])));
      const invalid = await send([pay('2')], Memo.text(Buffer.from([0xff, 0xfe, 0x41])));
      const plain = await send([pay('3')], Memo.text('plain'));
      await eventually(
        'all three are in the wallet history',
        async () =>
          (await historyRow(plain)) !== undefined &&
          (await historyRow(nul)) !== undefined &&
          (await historyRow(invalid)) !== undefined,
        15_000,
      );

      const rowNul = (await historyRow(nul))!;
      assert.equal(rowNul.memo, 'a\uFFFDb', 'NUL shown as U+FFFD');
      assert.equal(Buffer.from(rowNul.memo_base64!, 'base64').toString('hex'), '610062', 'the exact bytes kept');
      const rowInvalid = (await historyRow(invalid))!;
      assert.equal(rowInvalid.memo, '\uFFFD\uFFFDA');
      assert.equal(Buffer.from(rowInvalid.memo_base64!, 'base64').toString('hex'), 'fffe41');
      assert.equal((await historyRow(plain))!.memo, 'plain');

      const events = await svc.deps
        .db('outbox_events')
        .where({ type: 'payment.received' })
        .whereRaw(`data->>'txHash' = any(?)`, [[nul, invalid, plain]])
        .select('data');
      assert.deepEqual(events.map((e: { data: { amount: string } }) => e.data.amount).sort(), ['1', '2', '3']);
      assert.equal(lines.filter((l) => /ledger follower step failed/.test(l)).length, 0, 'no failed step');
    } finally {
      await stop();
    }
  });

  test('a transaction that cannot be recorded is quarantined with its raw XDR and the error; the follower goes on', async () => {
    // A database that refuses one transaction (as a stand-in for any recording failure nobody foresaw).
    await svc.deps.db.raw(`create function refuse_poison() returns trigger language plpgsql as $$
      begin if new.memo = 'poison' then raise exception 'poison transaction refused'; end if; return new; end $$`);
    await svc.deps.db.raw(
      `create trigger refuse_poison before insert on transactions for each row execute function refuse_poison()`,
    );
    const { log, lines } = capturingLogger('info');
    const stop = followInBackground({ ...svc.deps, log }, { intervalMs: 50 });
    try {
      const poison = await send([pay('4')], Memo.text('poison'));
      const after = await send([pay('5')], Memo.text('after'));
      await eventually('the later payment is recorded', async () => (await historyRow(after)) !== undefined, 15_000);
      assert.equal(await historyRow(poison), undefined);
      const quarantined = await svc.deps.db('chain_quarantine').where({ hash: poison }).first();
      assert.ok(quarantined, 'the poison transaction is quarantined');
      assert.equal(quarantined.network, 'testnet');
      assert.match(quarantined.error, /poison transaction refused/, JSON.stringify(quarantined));
      assert.ok(quarantined.envelope_xdr.length > 0 && quarantined.result_xdr.length > 0);
      assert.ok(lines.some((l) => /set a transaction aside/.test(l)));
      // Its event was undone with it: nothing half-written.
      assert.equal((await svc.deps.db('outbox_events').whereRaw(`data->>'txHash' = ?`, [poison])).length, 0);
    } finally {
      await stop();
      await svc.deps.db.raw('drop trigger refuse_poison on transactions');
      await svc.deps.db.raw('drop function refuse_poison');
    }
  });

  test('/ready tells how many ledgers the follower is behind', async () => {
    const res = await fetch(`${svc.url}/ready`);
    const body = (await res.json()) as { content: { checks: Record<string, { status: string; lagLedgers?: number }> } };
    assert.equal(res.status, 200);
    const entry = body.content.checks['ledgerFollower:testnet'];
    assert.ok(entry, JSON.stringify(body.content.checks));
    assert.equal(entry.status, 'up');
    assert.equal(typeof entry.lagLedgers, 'number');
    assert.ok(entry.lagLedgers! >= 0);
  });
});
