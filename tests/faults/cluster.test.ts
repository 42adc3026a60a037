// `make cluster` (scripts/cluster.ts): three API processes and two workers on one embedded PostgreSQL and localnet,
// behind the readiness-aware round-robin proxy. Requests are spread over the three; an API process killed with
// SIGKILL is left out without a failed request; SIGTERM stops every process cleanly (workers before the database).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { spawnCluster } from '../../scripts/clusterProcess';
import { isProcessRunning } from '../../src/infra/processes';
import { projectRoot } from '../../src/paths';

const READY_TIMEOUT_MS = 240_000;

let cluster: ChildProcess;
let output = '';
let proxyUrl: string;
let dataDir: string;

async function get(path: string): Promise<{ status: number; backend: string | null }> {
  const res = await fetch(`${proxyUrl}${path}`);
  await res.arrayBuffer();
  return { status: res.status, backend: res.headers.get('x-onboard-backend') };
}

before(async () => {
  // Under the project (embedded PostgreSQL runs as an unprivileged user, who must be able to enter every directory).
  dataDir = join(projectRoot, '.data', 'test-cluster', String(process.pid));
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  const spawned = await spawnCluster(dataDir, { LOCALNET_LEDGER_SECONDS: '1' });
  cluster = spawned.child;
  proxyUrl = `http://127.0.0.1:${spawned.proxyPort}`;
  cluster.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  cluster.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!output.includes('[cluster] ready:')) {
    if (cluster.exitCode !== null) throw new Error(`the cluster exited during start-up:\n${output}`);
    if (Date.now() > deadline) throw new Error(`the cluster was not ready in time:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
});

after(async () => {
  if (cluster.exitCode === null) cluster.kill('SIGKILL');
  const pids = JSON.parse(readFileSync(join(dataDir, 'cluster-pids.json'), 'utf8')) as Record<string, number>;
  for (const pid of Object.values(pids)) if (isProcessRunning(pid)) process.kill(pid, 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('make cluster', () => {
  test('requests are spread over the three API processes', async () => {
    const served = new Map<string, number>();
    for (let i = 0; i < 30; i++) {
      const { status, backend } = await get('/health');
      assert.equal(status, 200);
      served.set(backend!, (served.get(backend!) ?? 0) + 1);
    }
    assert.deepEqual([...served.keys()].sort(), ['api-1', 'api-2', 'api-3']);
    for (const n of served.values()) assert.equal(n, 10, JSON.stringify([...served]));
  });

  test('an API process killed with SIGKILL is left out: no request fails', async () => {
    const pids = JSON.parse(readFileSync(join(dataDir, 'cluster-pids.json'), 'utf8')) as Record<string, number>;
    process.kill(pids['api-2']!, 'SIGKILL');
    const answers = await Promise.all(Array.from({ length: 30 }, () => get('/ready')));
    for (const a of answers) assert.equal(a.status, 200);
    assert.ok(answers.every((a) => a.backend !== 'api-2'));
    assert.deepEqual([...new Set(answers.map((a) => a.backend))].sort(), ['api-1', 'api-3']);
    assert.match(output, /api-2 \(pid \d+\) exited \(SIGKILL\)/);
  });

  test('SIGTERM stops every process cleanly, the workers before the database', async () => {
    const pids = JSON.parse(readFileSync(join(dataDir, 'cluster-pids.json'), 'utf8')) as Record<string, number>;
    const exited = new Promise<number | null>((resolve) => cluster.once('exit', (code) => resolve(code)));
    cluster.kill('SIGTERM');
    assert.equal(await exited, 0, output);
    for (const [name, pid] of Object.entries(pids)) assert.equal(isProcessRunning(pid), false, `${name} still runs`);
    assert.match(output, /\[cluster\] stopped/);
    assert.doesNotMatch(output, /Unhandled 'error' event/);
    assert.doesNotMatch(output, /terminating connection due to administrator command/);
  });
});
