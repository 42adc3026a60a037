// What the service's long-running processes (`make run`'s main.ts and `npm run worker`'s worker.ts) share: reading
// the configuration (a bad value is one line and exit code 2) and stopping cleanly on Ctrl-C or SIGTERM.
import type { Logger } from 'pino';
import { ConfigError, loadConfig, type Config } from './config';
import { takeOverShutdownSignals } from './infra/db/embeddedPostgres';

/** The configuration from the environment; a bad value prints `configuration error: ...` and exits with 2. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`configuration error: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
}

/** On SIGINT or SIGTERM (once): logs, runs `close` (which waits for running work), exits with 0. */
export function closeOnSignals(close: () => Promise<void>, log: Logger, what: string): void {
  // `close` stops an embedded PostgreSQL last; the package must not stop it first on the same signal.
  takeOverShutdownSignals();
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, `${what} shutting down`);
    await close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}
