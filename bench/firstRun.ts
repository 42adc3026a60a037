// What a newcomer waits for: `make run`'s process on an empty data directory (embedded PostgreSQL cluster created,
// 17 migrations, localnet, the demo seed with its friendbot funding and demo USDC) until the banner and /health, and
// the same process started again on that data directory (the baseline, measured in the same run): the difference is
// what the first run's extra work costs. Rounds alternate first and later starts, each on its own ports.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../src/infra/freePort';
import { projectRoot } from '../src/paths';
import { percentile, sized, SMOKE } from './support';

const ROUNDS = Number(process.env.FIRST_RUN_ROUNDS ?? sized(5, 1));
/** A smoke run closes a ledger every 0.2 s: the demo seed's funding then waits 0.2 s per ledger instead of 5 s. */
const LEDGERS: Record<string, string> = SMOKE ? { LOCALNET_LEDGER_SECONDS: '0.2' } : {};

/** Milliseconds from spawn to the banner's last line, then the process is stopped. */
async function timeToBanner(dataDir: string): Promise<number> {
  const env = {
    ...process.env,
    ONBOARD_DATA_DIR: dataDir,
    PORT: String(await freePort()),
    LOCALNET_PORT: String(await freePort()),
    EMBEDDED_PG_PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
    ...LEDGERS,
  };
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: projectRoot, env });
  let out = '';
  const elapsed = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('stop with Ctrl-C')) resolve(performance.now() - started);
    });
    child.once('exit', (code) => reject(new Error(`the service exited (${code}) before its banner:\n${out}`)));
  });
  const health = await fetch(`http://127.0.0.1:${env.PORT}/health`);
  if (health.status !== 200) throw new Error(`/health answered ${health.status}`);
  child.removeAllListeners('exit');
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  return elapsed;
}

export async function runFirstRun(): Promise<void> {
  const first: number[] = [];
  const later: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const dataDir = mkdtempSync(join(tmpdir(), 'onboard-first-run-'));
    try {
      first.push(await timeToBanner(dataDir));
      later.push(await timeToBanner(dataDir));
      console.log(
        `round ${round}/${ROUNDS}: first run ${Math.round(first.at(-1)!)} ms, later start ${Math.round(later.at(-1)!)} ms`,
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const p50 = (xs: number[]) => Math.round(percentile(xs, 50));
  console.log(
    `first run to banner: p50 ${p50(first)} ms (min ${Math.round(Math.min(...first))}, max ${Math.round(Math.max(...first))})`,
  );
  console.log(
    `later start to banner (baseline): p50 ${p50(later)} ms (min ${Math.round(Math.min(...later))}, max ${Math.round(Math.max(...later))})`,
  );
  console.log(`ratio first / later: ${(percentile(first, 50) / percentile(later, 50)).toFixed(2)}x`);
}
