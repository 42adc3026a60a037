// The benchmarks still run: every bench of bench/registry.ts (a new one is included without a change here) runs as
// `make bench` runs it, in a child process, at smoke sizes (BENCH_SMOKE=1, bench/support.ts: tiny sizes, the same
// code path with its own checks), and must print its header and exit 0 without writing into bench/results/. No figure
// is checked: a smoke run measures nothing, it only keeps the benches from rotting. Each bench starts its own embedded
// PostgreSQL, so this file needs no database.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_NAMES } from '../../bench/registry';
import { projectRoot } from '../../src/paths';

/** A bench's child is killed (with everything it started) after this long; the test's own timeout is a bit longer. */
const BENCH_TIMEOUT_MS = 240_000;

const resultsDir = join(projectRoot, 'bench/results');

/** bench/results/ as names and modification times, to show that a smoke run wrote nothing there. */
function results(): string[] {
  return readdirSync(resultsDir)
    .map((f) => `${f} ${statSync(join(resultsDir, f)).mtimeMs}`)
    .sort();
}

/** `BENCH=<name> BENCH_SMOKE=1 node --import tsx bench/run.ts`: its exit and its output (stdout and stderr). */
async function smokeRun(name: string): Promise<{ exit: string; output: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, BENCH: name, BENCH_SMOKE: '1' };
  // The benches start their own embedded PostgreSQL; a DATABASE_URL from the environment would send some of them
  // (history, the first run's service) to that server instead.
  delete env.DATABASE_URL;
  // Its own process group, so that a bench stopped at the deadline takes its PostgreSQL and API processes with it.
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts'], {
    cwd: projectRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // the group ended meanwhile
    }
  }, BENCH_TIMEOUT_MS);
  const exit = await new Promise<string>((resolve) =>
    child.once('close', (code, signal) =>
      resolve(timedOut ? `killed after ${BENCH_TIMEOUT_MS} ms` : `${code ?? signal}`),
    ),
  );
  clearTimeout(timer);
  return { exit, output };
}

// Two at a time: a smoke run mostly waits (PostgreSQL starting, ledger closes, distribution-crash's lapsed
// reservations), so two share the machine well. Measured on this 2-core machine beside a CI run: about 95 s for the
// 15 benches, against 175 s one at a time and 130 s for all of them in one process (BENCH unset).
describe('every bench at smoke sizes', { concurrency: 2 }, () => {
  for (const name of BENCH_NAMES) {
    test(`BENCH=${name} runs to the end`, { timeout: BENCH_TIMEOUT_MS + 30_000 }, async () => {
      const before = results();
      const { exit, output } = await smokeRun(name);
      const tail = output.slice(-4000);
      assert.equal(exit, '0', `BENCH=${name} BENCH_SMOKE=1 exited ${exit}:\n${tail}`);
      assert.ok(output.includes(`== bench: ${name}\n`), `no "== bench: ${name}" header:\n${tail}`);
      assert.deepEqual(results(), before, `BENCH=${name} BENCH_SMOKE=1 wrote into bench/results/`);
    });
  }
});
