// `npm run admin -- <command> ...`: operator, app and key administration from the shell (see adminCommands.ts).
// Uses DATABASE_URL when set; otherwise the embedded PostgreSQL of `make run` (reached on its port when the service is
// running, started from .data/postgres for the duration of the command when it is not). Migrations run first.
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../config';
import { systemClock } from '../deps';
import { createKeyManagement } from '../infra/kms/index';
import { KmsConfigError } from '../infra/kms/keyManagement';
import { createDb, isDatabaseReachable, migrateToLatest } from '../infra/db/database';
import { embeddedDatabaseUrl, startEmbeddedPostgres, type EmbeddedDatabase } from '../infra/db/embeddedPostgres';
import { ADMIN_USAGE, runAdminCommand, UsageError } from './adminCommands';

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
      embedded = await startEmbeddedPostgres({ dataDir: join(config.dataDir, 'postgres'), port: config.embeddedPostgresPort, database: 'onboard' });
      url = embedded.url;
    }
  }
  const db = createDb(url, { poolMax: 2 });
  try {
    await migrateToLatest(db);
    await runAdminCommand({ db, kms, clock: systemClock }, argv, (line) => console.log(line), { baseUrl: config.publicUrl });
    return 0;
  } finally {
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
    if (err instanceof UsageError || err instanceof ConfigError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`admin: ${(err as Error).message}\n\n${ADMIN_USAGE}`);
      process.exit(2);
    }
    console.error(err);
    process.exit(1);
  },
);
