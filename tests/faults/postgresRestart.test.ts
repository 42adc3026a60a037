// A fault test of issue 22: PostgreSQL restarted under a running service and a worker process, once stopped cleanly
// and once killed (SIGKILL of the postmaster, then crash recovery). While it is down, requests answer a clean error (never a crash of
// the process: every connection the service holds, the pool's, the job queue's and the change feed's, sees its
// backend terminated); once it is back, the same process answers again without a restart, its caches listen again,
// payments go through and the bank check (tests/support/bankCheck.ts) holds. On a PostgreSQL of this test's own.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/infra/db/embeddedPostgres';
import { freePort } from '../../src/infra/freePort';
import { createStellarGateway, type StellarGateway } from '../../src/infra/stellar/gateway';
import { bankCheck, payingUsers, untilSettled, xlmPayment } from '../support/bankCheck';
import { eventually } from '../support/funding';
import { startTestService, type TestService } from '../support/service';
import type { UserClient } from '../support/users';
import { startWorkerProcess, type WorkerProcess } from '../support/workerProcess';

describe('fault: PostgreSQL restarted under a running service', () => {
  let dir: string;
  let port: number;
  let pg: EmbeddedDatabase | undefined;
  let svc: TestService;
  let chain: StellarGateway;
  let users: UserClient[];
  let appId: string;
  let destination: string;
  /** A worker as a process of its own (`npm run worker`) on the same database: it must live through the restarts too. */
  let worker: WorkerProcess;
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => uncaught.push(err);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'onboard-pg-restart-'));
    port = await freePort();
    pg = await startEmbeddedPostgres({ dataDir: dir, port, database: 'onboard', persistent: true });
    svc = await startTestService(
      { TX_CONFIRM_INTERVAL_MS: '200' },
      { database: { url: pg.url, drop: async () => {} }, closeLedgersEveryMs: 100 },
    );
    chain = createStellarGateway({
      network: 'testnet',
      rpcUrl: svc.localnet!.rpcUrl,
      networkPassphrase: svc.localnet!.networkPassphrase,
    });
    ({ appId, users, destination } = await payingUsers(svc, 2));
    process.on('uncaughtException', onUncaught);
    worker = startWorkerProcess(svc);
    await eventually('the worker is up', async () => worker.output().includes('stop with Ctrl-C'), 60_000);
  });
  after(async () => {
    process.off('uncaughtException', onUncaught);
    worker?.process.kill('SIGKILL');
    await svc?.stop();
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const pay = (user: UserClient, stroops: number) =>
    user.rawCall('POST', '/v1/tx/run', { body: xlmPayment(destination, stroops) });

  async function whileDown(): Promise<void> {
    const res = await pay(users[0]!, 99);
    assert.ok(res.status >= 500 && res.status < 600, `${res.status} ${res.text}`);
    assert.ok(res.body && typeof res.body.code === 'string', 'an error envelope, not a dropped connection');
    const ready = await fetch(`${svc.url}/ready`);
    assert.equal(ready.status, 503);
  }

  async function afterRestart(round: number): Promise<void> {
    await eventually(
      'the service is ready again',
      async () => (await fetch(`${svc.url}/ready`)).status === 200,
      30_000,
    );
    for (const [i, u] of users.entries()) {
      const res = await pay(u, round * 10 + i + 1);
      assert.equal(res.status, 200, res.text);
    }
    await untilSettled(svc.deps.db, appId);
    const report = await bankCheck(svc.deps.db, chain, appId);
    assert.equal(report.walletsFunded, users.length);
    assert.deepEqual(uncaught, [], 'no connection error escaped');
    assert.equal(worker.process.exitCode, null, `the worker process died:\n${worker.output()}`);
    assert.doesNotMatch(worker.output(), /Unhandled 'error' event/);
  }

  test('stopped cleanly and started again', async () => {
    await pg!.stop();
    pg = undefined;
    await whileDown();
    pg = await startEmbeddedPostgres({ dataDir: dir, port, database: 'onboard', persistent: true });
    await afterRestart(1);
  });

  test('killed (SIGKILL of the postmaster) and recovered', async () => {
    const postmasterPid = Number(readFileSync(join(pg!.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(postmasterPid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 500));
    await whileDown();
    pg = await startEmbeddedPostgres({ dataDir: dir, port, database: 'onboard', persistent: true });
    await afterRestart(2);
  });
});
