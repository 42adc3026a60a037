// What the scenario benchmarks share: the real service on a throwaway embedded PostgreSQL and data directory, and the
// percentile they report.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../src/config';
import { startEmbeddedPostgres } from '../src/infra/db/embeddedPostgres';
import { freePort } from '../src/infra/freePort';
import { startService, type RunningService } from '../src/service';

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
