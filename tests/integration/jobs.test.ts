// The job layer on real PostgreSQL: a job enqueued inside a transaction exists exactly when the transaction commits;
// a periodic job's passes never overlap across processes sharing a database and go on when one process stops; and
// `npm run worker`, a process of its own, runs the background jobs for an API process started with WORKERS=off.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { Account, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import type { PeriodicJob } from '../../src/jobs/registry';
import { periodicJobs } from '../../src/jobs/registry';
import { startWorkers } from '../../src/jobs/worker';
import { freshDatabase, type TestDatabase } from '../support/database';
import { startTestService, type TestService } from '../support/service';
import { startWorkerProcess } from '../support/workerProcess';
import { appWithWallet, eventually, gatewayOf, userWallet } from '../support/funding';

async function jobsNamed(svc: TestService, name: string): Promise<number> {
  const rows = await svc.deps.db.raw<{ rows: { n: string }[] }>('select count(*) as n from pgboss.job where name = ?', [
    name,
  ]);
  return Number(rows.rows[0]!.n);
}

describe('enqueueing inside a transaction', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
    await svc.deps.jobs.createQueue('test-enqueue');
  });
  after(async () => {
    await svc?.stop();
  });

  test('a rolled-back transaction leaves no job; a committed one leaves exactly its job', async () => {
    await assert.rejects(
      svc.deps.db.transaction(async (trx) => {
        await svc.deps.jobs.send('test-enqueue', { n: 1 }, { trx });
        throw new Error('the write fails after enqueueing');
      }),
      /the write fails/,
    );
    assert.equal(await jobsNamed(svc, 'test-enqueue'), 0);
    await svc.deps.db.transaction(async (trx) => {
      await svc.deps.jobs.send('test-enqueue', { n: 2 }, { trx });
      // Not visible outside the transaction before it commits.
      assert.equal(await jobsNamed(svc, 'test-enqueue'), 0);
    });
    assert.equal(await jobsNamed(svc, 'test-enqueue'), 1);
  });
});

describe('a periodic job on two processes sharing one database', () => {
  let database: TestDatabase;
  let a: TestService;
  let b: TestService;
  before(async () => {
    database = await freshDatabase();
    a = await startTestService({}, { database });
    b = await startTestService({}, { database });
    await a.deps.db.schema.createTable('test_passes', (t) => {
      t.increments('id');
      t.string('instance').notNullable();
      t.bigInteger('started_ms').notNullable();
      t.bigInteger('ended_ms').notNullable();
    });
  });
  after(async () => {
    await a?.stop();
    await b?.stop();
    await database?.drop();
  });

  /** A pass that takes 150 ms and records when it ran, and where. */
  const job = (instance: string): PeriodicJob => ({
    kind: 'periodic',
    name: 'test-periodic',
    everyMs: () => 50,
    failureLevel: 'warn',
    create: (deps) => async () => {
      const started = Date.now();
      await new Promise((r) => setTimeout(r, 150));
      await deps.db('test_passes').insert({ instance, started_ms: started, ended_ms: Date.now() });
      return 'idle';
    },
  });
  const passes = async () =>
    (await a.deps.db('test_passes').orderBy('started_ms')).map((r: any) => ({
      instance: r.instance as string,
      started: Number(r.started_ms),
      ended: Number(r.ended_ms),
    }));

  test('passes never overlap, and go on in the other process when one stops', async () => {
    const stopA = await startWorkers(a.deps, a.deps.jobs, { jobs: [job('a')] });
    const stopB = await startWorkers(b.deps, b.deps.jobs, { jobs: [job('b')] });
    try {
      await eventually('eight passes', async () => (await passes()).length >= 8, 30_000);
      await stopA();
      const before = (await passes()).length;
      await eventually('three more passes after one process stopped', async () => {
        const after = await passes();
        return after.length >= before + 3 && after.slice(before).every((p) => p.instance === 'b');
      });
    } finally {
      await stopB();
    }
    const all = await passes();
    for (let i = 1; i < all.length; i++)
      assert.ok(all[i]!.started >= all[i - 1]!.ended, `pass ${i} started before pass ${i - 1} ended`);
  });
});

describe('npm run worker beside an API process with WORKERS=off', () => {
  let svc: TestService;
  let worker: ChildProcess | undefined;
  before(async () => {
    svc = await startTestService({ WORKERS: 'off' }, { closeLedgersEveryMs: 100 });
  });
  after(async () => {
    worker?.kill('SIGTERM');
    await new Promise((r) => (worker && worker.exitCode === null ? worker.once('exit', r) : r(undefined)));
    await svc?.stop();
  });

  test('the worker process follows the ledger for the API: an outside transaction reaches the history only once it runs', async () => {
    const { app } = await appWithWallet(svc, { settings: { fundingMode: 'deferred' }, funded: false });
    const [before, after] = [await userWallet(svc, app), await userWallet(svc, app)];
    const historyRows = async (walletId: string) =>
      Number((await svc.deps.db('tx_history').where({ wallet_id: walletId }).count({ n: '*' }))[0]!.n);
    // An account the service never saw creates the wallets' accounts: transactions the follower records.
    const outsider = Keypair.random();
    await gatewayOf(svc).fundWithFriendbot(outsider.publicKey());
    const createAccount = async (destination: string) => {
      const gw = gatewayOf(svc);
      const account = (await gw.loadAccount(outsider.publicKey()))!;
      const tx = new TransactionBuilder(new Account(outsider.publicKey(), account.sequence), {
        fee: '100',
        networkPassphrase: gw.networkPassphrase,
      })
        .addOperation(Operation.createAccount({ destination, startingBalance: '5' }))
        .setTimeout(60)
        .build();
      tx.sign(outsider);
      await gw.submitAndConfirm(tx);
    };
    await createAccount(before.publicKey);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(await historyRows(before.id), 0, 'no job runs in the API process');

    const started = startWorkerProcess(svc, { LEDGER_FOLLOWER: 'on' });
    worker = started.process;
    const output = started.output;
    await eventually('the worker has started', async () => output().includes('worker on'), 60_000);
    assert.match(output(), /ledger-follower/);
    // The follower starts at the chain's latest ledger when it first runs: what happens after that is recorded.
    await eventually(
      'the follower has started',
      async () => (await svc.deps.db('ledger_followers').first()) !== undefined,
    );
    await createAccount(after.publicKey);
    await eventually('the account creation is in the wallet history', async () => (await historyRows(after.id)) > 0);
  });
});

test('the registry: unique names, a period for every periodic job', () => {
  const names = periodicJobs.map((job) => job.name);
  assert.equal(new Set(names).size, names.length);
  for (const job of periodicJobs) assert.ok(job.everyMs({} as never) > 0, job.name);
});
