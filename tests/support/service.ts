// Runs the real service (same startService as `make run`) on a free port against a fresh test database.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { loadConfig } from '../../src/config';
import { startService, type RunningService } from '../../src/service';
import { freshDatabase } from './database';

export interface TestService extends RunningService {
  stop(): Promise<void>;
}

/** `log` replaces the silent logger (e.g. to capture the service's log lines). */
export async function startTestService(env: Record<string, string> = {}, opts: { log?: Logger } = {}): Promise<TestService> {
  const db = await freshDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'onboard-test-data-'));
  // The in-process localnet plays testnet as under `make run`, on a free port, closing ledgers only on demand.
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: db.url,
    LOG_LEVEL: 'silent',
    ONBOARD_DATA_DIR: dataDir,
    LOCALNET_PORT: '0',
    LOCALNET_LEDGER_SECONDS: 'manual',
    ...env,
  });
  const service = await startService(config, opts.log ?? pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }));
  return {
    ...service,
    stop: async () => {
      await service.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
