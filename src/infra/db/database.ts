// The database handle (knex over pg), migrations, and the one transaction helper.
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { migrations } from './migrations/index';

export type Db = Knex;
export type Trx = Knex.Transaction;

export function createDb(url: string, opts: { poolMax?: number } = {}): Db {
  return knexFactory({
    client: 'pg',
    connection: url,
    pool: { min: 0, max: opts.poolMax ?? 10 },
    // Migrations are listed in code (migrations/index.ts) so they load the same under tsx, tests and builds.
    migrations: { migrationSource: migrationSource(), tableName: 'knex_migrations' },
  });
}

function migrationSource(): Knex.MigrationSource<(typeof migrations)[number]> {
  return {
    getMigrations: async () => migrations,
    getMigrationName: (m) => m.name,
    getMigration: async (m) => m,
  };
}

/** Brings the schema to the latest version; safe to run from several processes at once (knex takes a lock). */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const [, applied] = (await db.migrate.latest()) as [number, string[]];
  return applied;
}

/**
 * Runs `work` in one database transaction. Pass `trx` explicitly to everything inside; make no network calls (chain,
 * KMS, email) inside: record intent, commit, call out, then record the outcome in a second transaction.
 */
export function withTx<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  return db.transaction(work);
}

/** Whether a PostgreSQL server answers at `url` (a 2 s connection attempt). */
export async function isDatabaseReachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

/**
 * The one row a statement that always yields one returned (an INSERT or UPDATE ... RETURNING of a row known to exist);
 * an empty answer is a broken invariant, reported as such rather than as a TypeError later.
 */
export function onlyRow<T>(rows: T[], statement: string): T {
  const [row] = rows;
  if (row === undefined) throw new Error(`${statement} returned no row`);
  return row;
}

/**
 * Runs one statement as a prepared statement on a connection of `db`'s pool: node-postgres names it, so each
 * connection has PostgreSQL parse and plan it once instead of on every call, and knex's query building is skipped.
 * For the few fixed statements that most requests make (in the sessions and transactions benches, knex cost about
 * 0.25 ms a statement on a slow machine). `text` takes $1, $2, ... placeholders. Given a transaction, the statement runs
 * on the transaction's own connection (knex's transaction client hands out only that one), inside it.
 *
 * A statement run this way names its columns rather than `*`: PostgreSQL refuses to run a prepared plan whose result
 * columns a later migration changed ("cached plan must not change result type"); named columns are planned again.
 */
export async function preparedQuery<R>(db: Db, name: string, text: string, values: unknown[]): Promise<{ rows: R[] }> {
  if (db.isTransaction && (db as Trx).isCompleted())
    throw new Error(`preparedQuery ${name}: the transaction is already complete`);
  const client = db.client as Knex.Client;
  const connection = (await client.acquireConnection()) as pg.ClientBase;
  try {
    const result = await connection.query<R & pg.QueryResultRow>({ name, text, values });
    return { rows: result.rows };
  } finally {
    await client.releaseConnection(connection);
  }
}
