// The service as a process of its own (`make run`'s entry point, src/main.ts), for tests that kill it (SIGKILL) at
// the worst moment: on a database, chain and data directory that the test shares with it through `env`.
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../src/infra/freePort';
import { projectRoot } from '../../src/paths';
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
