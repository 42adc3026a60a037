// `npm run worker`: a process that runs the background jobs (src/jobs/registry.ts) and serves no HTTP, beside the API
// (`make run`, or API processes started with WORKERS=off) on the same database. Any number may run at once: the job
// queue gives each pass and each delivery to one of them. Without DATABASE_URL it attaches to the embedded PostgreSQL
// and the localnet of a running `make run` (on EMBEDDED_PG_PORT and LOCALNET_PORT).
import { pino } from 'pino';
import { closeOnSignals, loadConfigOrExit } from './processLifecycle';
import { ServiceSecretError } from './infra/secrets/serviceSecret';
import { KmsConfigError } from './infra/kms/keyManagement';
import { jobsToRun, startService } from './service';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const log = pino({ level: config.logLevel });
  let service;
  try {
    service = await startService(config, log, { role: 'worker' });
  } catch (err) {
    if (err instanceof ServiceSecretError || err instanceof KmsConfigError) {
      console.error(`configuration error: ${err.message}`);
      process.exit(2);
    }
    if ((err as { code?: unknown } | null)?.code === 'ECONNREFUSED') {
      console.error(
        config.databaseUrl
          ? `error: cannot reach the database at DATABASE_URL (${new URL(config.databaseUrl).host})`
          : `error: no database on port ${config.embeddedPostgresPort}: start the service first (make run), or set DATABASE_URL`,
      );
      process.exit(1);
    }
    throw err;
  }
  process.stdout.write(
    `Onboard ${service.deps.version} worker on ${service.databaseDescription}: ${jobsToRun(config, true).join(', ')}\n  stop with Ctrl-C\n`,
  );
  closeOnSignals(() => service.close(), log, 'worker');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
