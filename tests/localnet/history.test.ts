// getTransactions paging and the retention window, through the SDK.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Asset, Operation } from '@stellar/stellar-sdk';
import { build, call, newAccounts, submitOk, txHash, type TestNet, startTestLocalnet } from '../support/localnet';

describe('localnet: transaction history', () => {
  let net: TestNet;
  const hashes: string[] = [];
  let firstLedger = 0;
  before(async () => {
    net = await startTestLocalnet();
    const accounts = await newAccounts(net, 4, '50');
    firstLedger = (await net.server.getLatestLedger()).sequence + 1;
    // Three ledgers: 3 transactions, none, 2 transactions.
    for (const group of [accounts.slice(0, 3), [], accounts.slice(0, 2)]) {
      const txs = await Promise.all(
        group.map((a) =>
          build(net, a, [
            Operation.payment({ destination: accounts[3].publicKey(), asset: Asset.native(), amount: '1' }),
          ]),
        ),
      );
      for (const tx of txs) assert.equal((await net.server.sendTransaction(tx)).status, 'PENDING');
      const closed = await net.localnet.closeLedger();
      hashes.push(...closed.transactions.map((t) => t.hash));
      assert.deepEqual(
        closed.transactions.map((t) => t.hash),
        txs.map(txHash),
      );
    }
  });
  after(() => net?.stop());

  test('pages of 2 with the cursor walk every transaction once, in ledger and application order', async () => {
    const seen: string[] = [];
    let page = await net.server.getTransactions({ startLedger: firstLedger, pagination: { limit: 2 } });
    assert.equal(page.transactions.length, 2);
    for (;;) {
      seen.push(...page.transactions.map((t) => t.txHash));
      if (page.transactions.length === 0) break;
      page = await net.server.getTransactions({ pagination: { cursor: page.cursor, limit: 2 } });
    }
    assert.deepEqual(seen, hashes);
    const first = (await net.server.getTransactions({ startLedger: firstLedger, pagination: { limit: 1 } }))
      .transactions[0]!;
    assert.equal(first.status, 'SUCCESS');
    assert.equal(first.ledger, firstLedger);
    assert.equal(first.applicationOrder, 1);
    assert.equal(typeof first.createdAt, 'number');
    assert.equal(first.resultXdr.result.type, 'txSuccess');
    const raw = (await call(net, 'getTransactions', { startLedger: firstLedger, pagination: { limit: 1 } })).result;
    assert.equal(raw.cursor, String((BigInt(firstLedger) << 32n) | (1n << 12n) | 1n));
    assert.equal(typeof raw.latestLedgerCloseTimestamp, 'number');
    assert.equal(typeof raw.transactions[0].createdAt, 'number');
  });

  test('default limit 50; errors -32600: start outside the range, limit over 200, start and cursor together', async () => {
    const all = await net.server.getTransactions({ startLedger: 1 });
    assert.equal(all.transactions.length, hashes.length + 1 /* newAccounts' transaction */);
    const latest = (await net.server.getLatestLedger()).sequence;
    await assert.rejects(
      net.server.getTransactions({ startLedger: latest + 1 }),
      (e: { code: number; message: string }) =>
        e.code === -32600 && /must be between the oldest ledger: 1 and the latest ledger/.test(e.message),
    );
    await assert.rejects(
      net.server.getTransactions({ startLedger: 1, pagination: { limit: 201 } }),
      (e: { code: number }) => e.code === -32600,
    );
    await assert.rejects(
      net.server.getTransactions({ startLedger: 1, pagination: { cursor: '1' } } as never),
      (e: { code: number }) => e.code === -32600,
    );
  });
});

describe('localnet: retention window', () => {
  test('ledgers older than retentionLedgers are dropped: oldestLedger moves, their transactions become NOT_FOUND', async () => {
    const net = await startTestLocalnet({ retentionLedgers: 3 });
    try {
      const [a] = await newAccounts(net, 1, '10');
      const got = await submitOk(net, await build(net, a, [Operation.bumpSequence({ bumpTo: '0' })]));
      assert.equal((await net.server.getTransaction(got.txHash)).status, 'SUCCESS');
      for (let i = 0; i < 3; i++) await net.localnet.closeLedger();
      const gone = await net.server.getTransaction(got.txHash);
      assert.equal(gone.status, 'NOT_FOUND');
      assert.equal(gone.oldestLedger, gone.latestLedger - 2);
      const health = await net.server.getHealth();
      assert.equal(health.ledgerRetentionWindow, 3);
      assert.equal(health.oldestLedger, gone.oldestLedger);
      // getLedgerEntries reads current state, whatever the window.
      assert.ok(await net.server.getAccount(a.publicKey()));
      await assert.rejects(
        net.server.getTransactions({ startLedger: got.ledger }),
        (e: { code: number }) => e.code === -32600,
      );
    } finally {
      await net.stop();
    }
  });
});
