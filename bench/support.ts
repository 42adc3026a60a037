// What the scenario benchmarks share: the real service on a throwaway embedded PostgreSQL and data directory, the
// percentile they report, where their reports go, and the smoke run's sizes.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../src/config';
import { startEmbeddedPostgres } from '../src/infra/db/embeddedPostgres';
import { freePort } from '../src/infra/freePort';
import { projectRoot } from '../src/paths';
import { startService, type RunningService } from '../src/service';

/**
 * BENCH_SMOKE=1: a smoke run (tests/bench/smoke.test.ts). Every bench runs its real code path end to end, with its
 * checks, at sizes small enough to finish in seconds; its figures mean nothing, so nothing is recorded.
 */
export const SMOKE = process.env.BENCH_SMOKE === '1';

/** A bench's size: `full` on a real run, `smoke` on a smoke run. The one place the two differ. */
export function sized<T>(full: T, smoke: T): T {
  return SMOKE ? smoke : full;
}

/** What a smoke run prints where a real run says where it recorded its report. */
export const NOT_RECORDED = 'smoke run (BENCH_SMOKE=1): not recorded';

/** Writes a bench's report to bench/results/<fileName> and prints it; a smoke run only prints it. */
export function recordReport(fileName: string, report: string): void {
  if (SMOKE) {
    console.log(`\n${report}\n${NOT_RECORDED}`);
    return;
  }
  const file = join(projectRoot, 'bench/results', fileName);
  writeFileSync(file, report);
  console.log(`\n${report}\nrecorded in ${file}`);
}

/** The median of `values` (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * The median over rounds of `of[i] / baseline[i]`: each ratio is of two samples taken one after the other in the
 * same round, so a slow spell of the shared machine that spans a round divides out, which a ratio of the two
 * medians does not do.
 */
export function medianRoundRatio(of: number[], baseline: number[]): number {
  return median(of.map((v, i) => v / baseline[i]!));
}

/** Linux's clock tick for /proc CPU times (USER_HZ): 100 per second on every architecture Node supports there. */
const CLOCK_TICK_US = 10_000;

/**
 * The CPU time (us) used so far by the local PostgreSQL server of data directory `dataDir`: its postmaster (with the
 * processes it has reaped) and the processes now running under it (backends, background workers), from Linux's
 * /proc in 10 ms ticks; undefined where there is no /proc or no such server. So a bench can say where a request's CPU
 * goes: the service's process or the database's.
 */
export function postgresCpuMicros(dataDir: string): number | undefined {
  try {
    const postmaster = readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]!.trim();
    let ticks = 0;
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        continue; // gone since the listing
      }
      // After "pid (comm) ": state, ppid, ..., utime (12th), stime, cutime, cstime. comm may hold spaces or parens.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const own = Number(fields[11]) + Number(fields[12]);
      if (pid === postmaster) ticks += own + Number(fields[13]) + Number(fields[14]);
      else if (fields[1] === postmaster) ticks += own;
    }
    return ticks * CLOCK_TICK_US;
  } catch {
    return undefined;
  }
}

/** The p-th percentile (nearest rank) of `values`. */
export function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

/** Runs `run` against a fresh service (startService with `env` over silent, seedless defaults), then removes it all. */
export async function withService<T>(
  name: string,
  env: Record<string, string>,
  run: (svc: RunningService) => Promise<T>,
): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), `onboard-bench-${name}-`));
  const pgDir = mkdtempSync(join(tmpdir(), 'onboard-bench-pg-'));
  const pg = await startEmbeddedPostgres({
    dataDir: pgDir,
    port: await freePort(),
    database: 'bench',
    persistent: false,
  });
  const svc = await startService(
    loadConfig({
      PORT: '0',
      DATABASE_URL: pg.url,
      LOG_LEVEL: 'silent',
      LOCALNET_PORT: '0',
      ONBOARD_DATA_DIR: dataDir,
      DEMO_SEED: 'off',
      ...env,
    }),
    pino({ level: 'silent' }),
  );
  try {
    return await run(svc);
  } finally {
    await svc.close();
    await pg.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(pgDir, { recursive: true, force: true });
  }
}
