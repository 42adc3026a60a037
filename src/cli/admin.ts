// `npm run admin -- <command> ...`: operator, app and key administration from the shell (see adminCommands.ts).
// Uses DATABASE_URL when set; otherwise the embedded PostgreSQL of `make run` (reached on its port when the service is
// running, started from .data/postgres for the duration of the command when it is not). Migrations run first.
// The chain (only create-app on testnet needs it, to fund the app wallet from friendbot) is found the same way: the
// configured testnet RPC, or the localnet of `make run` (reached on its port, or started from .data/localnet for the
// command, which then keeps the funded account for the service's next start).
import { join } from 'node:path';
import { ConfigError, loadConfig, type Config } from '../config';
import { systemClock, type Deps } from '../domain/deps';
import { probeRpcHealth } from '../infra/stellar/rpcHealth';
import { startLocalnet, type Localnet } from '../localnet/index';
import { stellarGateways } from '../service';
import { createKeyManagement } from '../infra/kms/index';
import { pino } from 'pino';
import { KmsConfigError } from '../infra/kms/keyManagement';
import { startJobQueue, type JobQueue } from '../infra/jobs/jobQueue';
import { createQueues } from '../jobs/worker';
import { createDb, isDatabaseReachable, migrateToLatest } from '../infra/db/database';
import {
  EmbeddedPostgresError,
  embeddedDatabaseUrl,
  startEmbeddedPostgres,
  type EmbeddedDatabase,
} from '../infra/db/embeddedPostgres';
import { ADMIN_USAGE, runAdminCommand, UsageError } from './adminCommands';

/** How often the command's own localnet closes a ledger: friendbot's payment waits for one. */
const CLI_LEDGER_CLOSE_MS = 1000;

/** The chain for the command, opened on first need; `stop` ends a localnet started for it. */
function chainOpener(config: Config): {
  open: (note: (line: string) => void) => Promise<Deps['stellar']>;
  stop: () => Promise<void>;
} {
  let localnet: Localnet | undefined;
  let opened: Promise<Deps['stellar']> | undefined;
  const open = async (note: (line: string) => void): Promise<Deps['stellar']> => {
    const rpcUrls = { ...config.stellarRpcUrls };
    // LOCALNET_PORT=0 (a random port) cannot be found from here, and a second localnet on the same state directory
    // would fork it: then testnet stays unconfigured and funding reports it.
    if (config.localnet && config.localnet.port !== 0) {
      const url = `http://127.0.0.1:${config.localnet.port}/rpc`;
      rpcUrls.testnet = url;
      if (!(await probeRpcHealth(url)).healthy) {
        // Nothing healthy answers there. Starting it fails while anything holds the port (the service's localnet
        // would), so a running service's state directory is never opened twice; then the port is used as it is.
        try {
          localnet = await startLocalnet({
            port: config.localnet.port,
            ledgerCloseMs: CLI_LEDGER_CLOSE_MS,
            dataDir: config.localnet.dataDir,
          });
          rpcUrls.testnet = localnet.rpcUrl;
          note(`localnet is not running: started from ${config.localnet.dataDir} for this command`);
        } catch (err) {
          note(
            `localnet could not be started on port ${config.localnet.port}: ${err instanceof Error ? err.message : String(err)}`,
          );
        }
      }
    }
    return { rpcUrls, gateways: stellarGateways(rpcUrls, config) };
  };
  return {
    open: (note) => (opened ??= open(note)),
    stop: async () => {
      await localnet?.stop();
    },
  };
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === 'help') {
    console.log(ADMIN_USAGE);
    return argv.length === 0 ? 2 : 0;
  }
  const config = loadConfig();
  // The service's key management (same master key file or KMS key), so app wallets created here open in the service.
  const kms = createKeyManagement(config.kms);
  let url = config.databaseUrl;
  let embedded: EmbeddedDatabase | undefined;
  if (!url) {
    url = embeddedDatabaseUrl(config.embeddedPostgresPort, 'onboard');
    if (!(await isDatabaseReachable(url))) {
      embedded = await startEmbeddedPostgres({
        dataDir: join(config.dataDir, 'postgres'),
        port: config.embeddedPostgresPort,
        database: 'onboard',
      });
      url = embedded.url;
    }
  }
  const db = createDb(url, { poolMax: 2 });
  const chain = chainOpener(config);
  let jobs: JobQueue | undefined;
  try {
    await migrateToLatest(db);
    // Send-only: what a command writes may enqueue jobs (webhook deliveries of the events it records); the service's
    // workers run them.
    jobs = await startJobQueue({ databaseUrl: url, log: pino({ level: 'warn' }), supervise: false });
    await createQueues({ webhooks: config.webhooks }, jobs);
    await runAdminCommand({ db, kms, clock: systemClock, jobs }, argv, (line) => console.log(line), {
      baseUrl: config.publicUrl,
      stellar: chain.open,
    });
    return 0;
  } finally {
    await jobs?.stop(0);
    await chain.stop();
    await db.destroy();
    await embedded?.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof KmsConfigError) {
      console.error(`admin: configuration error: ${err.message}`);
      process.exit(2);
    }
    if (err instanceof EmbeddedPostgresError) {
      console.error(`admin: ${err.message}`);
      process.exit(1);
    }
    if (
      err instanceof UsageError ||
      err instanceof ConfigError ||
      (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    ) {
      console.error(`admin: ${(err as Error).message}\n\n${ADMIN_USAGE}`);
      process.exit(2);
    }
    console.error(err);
    process.exit(1);
  },
);
