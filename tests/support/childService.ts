// The service as a process of its own (`make run`'s entry point, src/main.ts), for tests that kill it (SIGKILL) at
// the worst moment: on a database, chain and data directory that the test shares with it through `env`.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb, type Db } from '../../src/infra/db/database';
import { createStellarGateway, type StellarGateway } from '../../src/infra/stellar/gateway';
import { startLocalnet, type Localnet } from '../../src/localnet/index';
import { freePort } from '../../src/infra/freePort';
import { projectRoot } from '../../src/paths';
import { freshDatabase, type TestDatabase } from './database';
import { eventually } from './funding';

export interface ChildService {
  child: ChildProcess;
  url: string;
}

/** Starts src/main.ts with `env` (DATABASE_URL, the RPC, ONBOARD_DATA_DIR...) and waits until /health answers. */
export async function startChildService(env: Record<string, string>): Promise<ChildService> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: projectRoot,
    env: {
      ...process.env,
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      DEMO_SEED: 'off',
    },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await eventually(
      'the child service answers /health',
      async () => (await fetch(`${url}/health`).catch(() => undefined))?.ok === true,
      60_000,
    );
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return { child, url };
}

/** Kills the process at once (no shutdown) and waits until it is gone. */
export async function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/**
 * What crash tests share: one deployment (a localnet whose ledgers the test closes, a fresh database, a data directory
 * with the service secret and the local master key) that in-process services and child processes of the service use
 * together through `env`; `startChild` starts such a process (killed on `stop`).
 */
export interface CrashDeployment {
  net: Localnet;
  /** The chain as the test reads it. */
  chain: StellarGateway;
  database: TestDatabase;
  /** The shared database, for the test's own reads. */
  db: Db;
  /** The service's environment on this deployment (plus the test's own settings). */
  env: Record<string, string>;
  startChild(): Promise<ChildService>;
  /** `npm run worker` (src/worker.ts, every background job) as a process of its own on the deployment. */
  startWorker(): ChildProcess;
  stop(): Promise<void>;
}

export async function crashDeployment(name: string, settings: Record<string, string>): Promise<CrashDeployment> {
  const net = await startLocalnet({ ledgerCloseMs: 'manual' });
  const chain = createStellarGateway({
    network: 'testnet',
    rpcUrl: net.rpcUrl,
    networkPassphrase: net.networkPassphrase,
  });
  const database = await freshDatabase();
  const db = createDb(database.url);
  const dataDir = mkdtempSync(join(tmpdir(), `onboard-${name}-`));
  const env = { STELLAR_TESTNET_RPC_URL: net.rpcUrl, ONBOARD_DATA_DIR: dataDir, ...settings };
  const children: ChildProcess[] = [];
  return {
    net,
    chain,
    database,
    db,
    env,
    async startChild() {
      const started = await startChildService({ ...env, DATABASE_URL: database.url });
      children.push(started.child);
      return started;
    },
    startWorker() {
      const worker = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
        cwd: projectRoot,
        env: { ...process.env, ...env, DATABASE_URL: database.url, LOCALNET: 'off', LOG_LEVEL: 'silent' },
        stdio: 'ignore',
      });
      children.push(worker);
      return worker;
    },
    async stop() {
      for (const child of children) child.kill('SIGKILL');
      await db.destroy();
      await net.stop();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
