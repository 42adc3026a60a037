// Starts the cluster of `make cluster` (scripts/cluster.ts) as a child process on free ports, for the tests and
// benchmarks that run against it (tests/faults/cluster.test.ts, bench/load.ts): one place that knows how to point it
// at its own ports, data directory and embedded database.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { consecutiveFreePorts, freePort } from '../src/infra/freePort';
import { projectRoot } from '../src/paths';

/** API processes the cluster runs, on consecutive ports from CLUSTER_API_BASE_PORT. */
export const CLUSTER_API_PROCESSES = 3;

export interface ClusterProcess {
  child: ChildProcess;
  proxyPort: number;
  /** The first API process's port; the others follow it. */
  apiBasePort: number;
  /** The embedded PostgreSQL's and the localnet's ports. */
  pgPort: number;
  localnetPort: number;
}

/** Spawns the cluster with its data under `dataDir`, its output piped; `env` adds or overrides settings. */
export async function spawnCluster(dataDir: string, env: Record<string, string> = {}): Promise<ClusterProcess> {
  const proxyPort = await freePort();
  const apiBasePort = await consecutiveFreePorts(CLUSTER_API_PROCESSES);
  const pgPort = await freePort();
  const localnetPort = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', join(projectRoot, 'scripts', 'cluster.ts')], {
    cwd: projectRoot,
    env: {
      ...process.env,
      CLUSTER_DATA_DIR: dataDir,
      CLUSTER_PORT: String(proxyPort),
      CLUSTER_API_BASE_PORT: String(apiBasePort),
      EMBEDDED_PG_PORT: String(pgPort),
      LOCALNET_PORT: String(localnetPort),
      DEMO_SEED: 'off',
      LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      RATE_LIMIT_STORE: 'postgres',
      ...env,
    },
    // In the caller's process group: Ctrl-C reaches it too, and it stops its processes in order.
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { child, proxyPort, apiBasePort, pgPort, localnetPort };
}
