// `npm run worker` as a test starts it: a process of its own (one node process, so a signal reaches the worker
// itself) on the test service's database, data directory (service secret, master key) and localnet, collecting what
// it prints.
import { spawn, type ChildProcess } from 'node:child_process';
import { projectRoot } from '../../src/paths';
import type { TestService } from './service';

export interface WorkerProcess {
  process: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
}

export function startWorkerProcess(svc: TestService, env: Record<string, string> = {}): WorkerProcess {
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
    cwd: projectRoot,
    env: {
      ...process.env,
      DATABASE_URL: svc.database.url,
      ONBOARD_DATA_DIR: svc.dataDir,
      LOCALNET: 'off',
      STELLAR_TESTNET_RPC_URL: svc.localnet!.rpcUrl,
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { process: child, output: () => output };
}
