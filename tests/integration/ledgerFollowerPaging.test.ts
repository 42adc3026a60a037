// The ledger follower's reading of the chain, step by step, against a scripted RPC (getTransactions semantics: a start
// ledger inside the retention window or -32600, a cursor reading on after the last transaction, pages of `limit`),
// on real PostgreSQL: pages end on whole ledgers (a partly read ledger is read again from its start; a ledger larger
// than a page is read to its end by cursor), a position below the window restarts at the oldest ledger, and every
// payment is recorded and announced exactly once however the ledgers are cut into pages.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Asset, Keypair, Networks, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { pino } from 'pino';
import { systemClock } from '../../src/domain/deps';
import { followStep, type FollowerState } from '../../src/domain/transactions/ledgerFollower';
import type { StellarGateway, TransactionDetails, TransactionsPage } from '../../src/infra/stellar/gateway';
import { seedCredentials } from '../support/credentials';
import { useMigratedDatabase } from '../support/database';
import { walletRow } from '../support/history';
import type { JobQueue } from '../../src/infra/jobs/jobQueue';

const db = useMigratedDatabase();

/** A scripted RPC: ledgers by sequence, each a list of transactions in application order. */
function scriptedGateway(ledgers: Map<number, TransactionDetails[]>, window: { oldest: number; latest: number }) {
  const calls: string[] = [];
  const outOfRange = () => Object.assign(new Error('start ledger out of range'), { code: -32600 });
  const gateway = {
    network: 'testnet',
    rpcUrl: 'http://scripted',
    networkPassphrase: Networks.TESTNET,
    health: async () => ({ healthy: true, latestLedger: window.latest }),
    ledgerFigures: async () => ({
      sequence: window.latest,
      closeTime: 0,
      baseReserveStroops: 5_000_000n,
      baseFeeStroops: 100,
    }),
    transactionsFrom: async (opts: {
      startLedger?: number;
      cursor?: string;
      limit?: number;
    }): Promise<TransactionsPage> => {
      calls.push(opts.cursor !== undefined ? `cursor ${opts.cursor}` : `start ${opts.startLedger}`);
      let ledger: number;
      let index: number; // the next transaction's 0-based index in `ledger`
      if (opts.cursor !== undefined)
        [ledger, index] = opts.cursor
          .split(':')
          .map(Number)
          .map((n, i) => (i === 1 ? n + 1 : n)) as [number, number];
      else {
        if (opts.startLedger! < window.oldest || opts.startLedger! > window.latest) throw outOfRange();
        [ledger, index] = [opts.startLedger!, 0];
      }
      const limit = opts.limit ?? 50;
      const transactions: TransactionDetails[] = [];
      let cursor = `${ledger}:${index - 1}`;
      for (; ledger <= window.latest && transactions.length < limit; ledger++, index = 0) {
        const txs = ledgers.get(ledger) ?? [];
        cursor = `${ledger}:-1`;
        for (; index < txs.length && transactions.length < limit; index++) {
          transactions.push(txs[index]!);
          cursor = `${ledger}:${index}`;
        }
        if (transactions.length >= limit) break;
      }
      return { transactions, cursor, latestLedger: window.latest, oldestLedger: window.oldest };
    },
  };
  return { gateway: gateway as unknown as StellarGateway, calls };
}

/** A successful payment of `amount` XLM from a random account to `to`, in `ledger`. */
function paymentTo(to: string, amount: string, ledger: number): TransactionDetails {
  const from = Keypair.random();
  const tx = new TransactionBuilder(new Account(from.publicKey(), '1'), {
    fee: '100',
    networkPassphrase: Networks.TESTNET,
  })
    .addOperation(Operation.payment({ destination: to, asset: Asset.native(), amount }))
    .setTimeout(0)
    .build();
  tx.sign(from);
  return {
    status: 'SUCCESS',
    hash: Buffer.from(tx.hash()).toString('hex'),
    ledger,
    createdAt: 1_790_000_000 + ledger * 5,
    feeBump: false,
    envelopeXdr: tx.toXDR(),
    resultXdr: '',
    codes: { transaction: 'tx_success', operations: ['op_success'] },
    feeChargedStroops: 100n,
  };
}

describe('followStep against a scripted RPC', () => {
  // No app here has a webhook endpoint, so recording events enqueues nothing: no job queue is needed.
  const deps = {
    db,
    log: pino({ level: 'silent' }),
    clock: systemClock,
    stellar: { rpcUrls: {} },
    jobs: {} as JobQueue,
  };

  test('pages of 2: whole ledgers per step, big ledgers read by cursor, every payment once; then caught up', async () => {
    const { app } = await seedCredentials(db);
    const w = await walletRow(db, app.id);
    const ledgers = new Map<number, TransactionDetails[]>();
    const other = Keypair.random().publicKey();
    ledgers.set(101, [
      paymentTo(w.publicKey, '1', 101),
      paymentTo(w.publicKey, '2', 101),
      paymentTo(w.publicKey, '3', 101),
    ]);
    ledgers.set(103, [paymentTo(w.publicKey, '4', 103)]);
    ledgers.set(104, [paymentTo(other, '9', 104), paymentTo(other, '9', 104)]);
    ledgers.set(
      105,
      [1, 2, 3, 4, 5].map((n) => paymentTo(w.publicKey, `1${n}`, 105)),
    );
    const window = { oldest: 90, latest: 100 };
    const { gateway, calls } = scriptedGateway(ledgers, window);
    const state: FollowerState = {};

    assert.equal(
      await followStep(deps, gateway, state, 2),
      'caught-up',
      'the first start reads the latest ledger (100, empty)',
    );
    assert.equal((await db('ledger_followers').where({ network: 'testnet' }).first()).next_ledger, 101);
    window.latest = 106;
    const steps: string[] = [];
    for (let i = 0; i < 10; i++) {
      const step = await followStep(deps, gateway, state, 2);
      steps.push(`${step} -> ${(await db('ledger_followers').where({ network: 'testnet' }).first()).next_ledger}`);
      if (step === 'caught-up') break;
    }
    assert.deepEqual(steps, ['behind -> 102', 'behind -> 104', 'behind -> 105', 'behind -> 106', 'caught-up -> 107']);
    assert.ok(calls.includes('cursor 101:1'), `ledger 101 read on by cursor: ${calls.join(', ')}`);

    const rows = await db('tx_history').where({ wallet_id: w.id }).select('summary');
    assert.equal(rows.length, 9);
    const events = await db('outbox_events')
      .where({ type: 'payment.received' })
      .whereRaw(`data->>'toWalletId' = ?`, [w.id])
      .select('data');
    assert.deepEqual(events.map((e) => e.data.amount).sort(), ['1', '11', '12', '13', '14', '15', '2', '3', '4']);
    assert.equal((await db('wallet_history_counts').where({ wallet_id: w.id }).first()).records, '9');
    assert.equal(
      await db('transactions')
        .whereIn(
          'hash',
          ledgers.get(104)!.map((t) => t.hash),
        )
        .first(),
      undefined,
      'transactions of nobody of the service are not kept',
    );
    assert.equal(await followStep(deps, gateway, state, 2), 'caught-up');

    // Below the window: restart at its oldest ledger and read everything again, adding nothing.
    await db('ledger_followers').where({ network: 'testnet' }).update({ next_ledger: 10 });
    window.oldest = 95;
    assert.equal(await followStep(deps, gateway, state, 2), 'behind');
    assert.equal((await db('ledger_followers').where({ network: 'testnet' }).first()).next_ledger, 95);
    for (let i = 0; i < 20 && (await followStep(deps, gateway, state, 3)) === 'behind'; i++);
    assert.equal((await db('ledger_followers').where({ network: 'testnet' }).first()).next_ledger, 107);
    assert.equal((await db('tx_history').where({ wallet_id: w.id })).length, 9);
    assert.equal(
      (await db('outbox_events').where({ type: 'payment.received' }).whereRaw(`data->>'toWalletId' = ?`, [w.id]))
        .length,
      9,
    );
  });

  test('a page another follower already recorded is not recorded again', async () => {
    const { app } = await seedCredentials(db);
    const w = await walletRow(db, app.id);
    const ledgers = new Map([[201, [paymentTo(w.publicKey, '7', 201)]]]);
    const window = { oldest: 150, latest: 201 };
    const { gateway } = scriptedGateway(ledgers, window);
    await db('ledger_followers').where({ network: 'testnet' }).update({ next_ledger: 201 });
    // Two followers read the same page at once: one records it, the other finds the position moved.
    await Promise.all([followStep(deps, gateway, {}, 5), followStep(deps, gateway, {}, 5)]);
    assert.equal((await db('ledger_followers').where({ network: 'testnet' }).first()).next_ledger, 202);
    assert.equal((await db('tx_history').where({ wallet_id: w.id })).length, 1);
    assert.equal(
      (await db('outbox_events').where({ type: 'payment.received' }).whereRaw(`data->>'toWalletId' = ?`, [w.id]))
        .length,
      1,
    );
  });
});
