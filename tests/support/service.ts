// Runs the real service (same startService as `make run`) on a free port against a fresh test database.
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { buildApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { createHandlers } from '../../src/operations/index';
import type { HandlerRegistry } from '../../src/operations/types';
import { loadBundledSpec, startService, type RunningService } from '../../src/service';
import { routeThroughConformanceProxy } from './conformanceHook';
import { freshMigratedDatabase, type TestDatabase } from './database';

export interface TestService extends RunningService {
  /** The service's database (dropped by stop() unless it was passed in). */
  database: TestDatabase;
  /** The service's ONBOARD_DATA_DIR (a fresh temporary directory unless `env` names one): the dev mail outbox is in `outbox/`. */
  dataDir: string;
  stop(): Promise<void>;
}

/**
 * `log` replaces the silent logger (e.g. to capture the service's log lines); `database` runs the service on an
 * existing test database (a restart, or a second instance), which stop() then leaves in place for its owner to drop;
 * `closeLedgersEveryMs` closes a ledger of the localnet that often (its own cadence is manual in tests), so chain work
 * waits for its ledger as on a real network, only faster, until stop().
 */
export async function startTestService(
  env: Record<string, string> = {},
  opts: { log?: Logger; database?: TestDatabase; closeLedgersEveryMs?: number } = {},
): Promise<TestService> {
  const db = opts.database ?? (await freshMigratedDatabase());
  // A data directory shared by several instances (env ONBOARD_DATA_DIR) belongs to the caller, which removes it.
  const dataDir = env.ONBOARD_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'onboard-test-data-'));
  // The in-process localnet plays testnet as under `make run`, on a free port, closing ledgers only on demand.
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: db.url,
    LOG_LEVEL: 'silent',
    ONBOARD_DATA_DIR: dataDir,
    LOCALNET_PORT: '0',
    LOCALNET_LEDGER_SECONDS: 'manual',
    // Limits far above what any suite sends (the fuzzer sends many requests per key); limits.test.ts sets them low.
    RATE_LIMIT_PER_KEY_PER_MINUTE: '1000000000',
    TESTNET_DAILY_QUOTA: '1000000000',
    // The ledger follower writes every service wallet's chain activity (friendbot top-ups, activations) into
    // histories and events; suites that test it turn it on, the others keep their rows and events to themselves.
    LEDGER_FOLLOWER: 'off',
    // Likewise the periodic low-balance scan: its events would land in other suites' exact event lists.
    SPONSOR_BALANCE_SCAN: 'off',
    ...env,
  });
  const service = await startService(config, opts.log ?? pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }));
  // In the run the test runner puts through Prism's validating proxy (CONFORMANCE_PROXY_URL), a scenario suite's
  // fetches to this service go through it (conformanceHook.ts); otherwise this does nothing.
  const unroute = routeThroughConformanceProxy(service.url);
  const closer = opts.closeLedgersEveryMs
    ? setInterval(() => void service.localnet?.closeLedger().catch(() => undefined), opts.closeLedgersEveryMs)
    : undefined;
  return {
    ...service,
    database: db,
    dataDir,
    stop: async () => {
      clearInterval(closer);
      await service.close();
      unroute();
      if (!opts.database) await db.drop();
      if (!env.ONBOARD_DATA_DIR) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The service's app with some handlers replaced (a stand-in that counts its runs, records its request or throws on
 * purpose), on `deps`, listening on a free port of 127.0.0.1: for the tests of what the router does around any
 * handler. close() stops it; the deps are the caller's.
 */
export async function serveWithHandlers(
  deps: Parameters<typeof buildApp>[0],
  replaced: Partial<HandlerRegistry>,
): Promise<{ url: string; close(): Promise<void> }> {
  const app = await buildApp(deps, { document: loadBundledSpec(), handlers: { ...createHandlers(deps), ...replaced } });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
