// A fresh database per test file on the suite's PostgreSQL (embedded by default, the machine's with CI=true), empty or
// with the service's schema. scripts/test.ts sets TEST_PG_ADMIN_URL; each call creates a uniquely named database and
// drops it afterwards. It also sets TEST_PG_TEMPLATE, a database it migrated once for the pass: a database with the
// schema is then a copy of it (about 0.4 s) rather than a migration of its own (about 0.8 s, and most of the suite's
// files need one). Without it (a file run on its own) each such database is migrated.
import { randomBytes } from 'node:crypto';
import { after, before } from 'node:test';
import pg from 'pg';
import { createDb, migrateToLatest, type Db } from '../../src/infra/db/database';
import { isProcessRunning } from '../../src/infra/processes';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export function adminUrl(): string {
  const url = process.env.TEST_PG_ADMIN_URL;
  if (!url) throw new Error('TEST_PG_ADMIN_URL is not set: run the tests with `make test` (scripts/test.ts)');
  return url;
}

/**
 * Creates a database for one test file. Its sessions commit without waiting for the WAL flush (synchronous_commit
 * off): what other sessions see, locks and isolation are unchanged (only a PostgreSQL server crash could lose the
 * last commits, which no test does), and a suite on a server with fsync on no longer waits for the disk per commit.
 */
async function createTestDatabase(name: string, template?: string): Promise<void> {
  await asAdmin(template ? `create database ${name} template ${template}` : `create database ${name}`);
  await asAdmin(`alter database ${name} set synchronous_commit = off`);
}

async function asAdmin<Row extends pg.QueryResultRow = pg.QueryResultRow>(
  sql: string,
  url = adminUrl(),
): Promise<Row[]> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    return (await admin.query<Row>(sql)).rows;
  } finally {
    await admin.end();
  }
}

/** Drops database `name` on the server at `url` (the suite's by default), sessions still connected or not. */
async function dropDatabase(name: string, url = adminUrl()): Promise<void> {
  await asAdmin(`drop database if exists ${name} with (force)`, url);
}

/** A unique database name and its URL on the suite's server; nothing is created yet. */
function newDatabaseName(): { name: string; url: string } {
  const name = `onboard_t_${randomBytes(6).toString('hex')}`;
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

/** An empty database (no schema), dropped by drop(). */
export async function freshDatabase(): Promise<TestDatabase> {
  const { name, url } = newDatabaseName();
  await createTestDatabase(name);
  return { url, drop: () => dropDatabase(name) };
}

/** The pass's migrated template (scripts/test.ts), when there is one: a PostgreSQL name, checked as such. */
function migratedTemplate(): string | undefined {
  const template = process.env.TEST_PG_TEMPLATE;
  if (!template) return undefined;
  if (!/^[a-z_][a-z0-9_]*$/.test(template)) throw new Error(`TEST_PG_TEMPLATE is not a database name: ${template}`);
  return template;
}

/** A database with the service's schema (a copy of the pass's template, or migrated here), dropped by drop(). */
export async function freshMigratedDatabase(): Promise<TestDatabase> {
  const { name, url } = newDatabaseName();
  await createMigratedDatabase(name, url);
  return { url, drop: () => dropDatabase(name) };
}

/** Creates database `name` (at `url`) with the service's schema: a copy of the pass's template, or migrated here. */
async function createMigratedDatabase(name: string, url: string): Promise<void> {
  const template = migratedTemplate();
  await createTestDatabase(name, template);
  if (!template) await migrate(url);
}

/** Brings the database at `url` to the latest schema, through a pool of its own that it closes. */
async function migrate(url: string): Promise<void> {
  const db = createDb(url);
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
}

/**
 * A fresh database with the service's schema for the test file that calls it (at its top level): created (a copy of
 * the pass's template, or migrated) before its tests, dropped after. The knex handle is returned at once (it connects
 * on first use), with a pool of 20 so concurrency tests can hold many connections.
 */
export function useMigratedDatabase(): Db {
  const { name, url } = newDatabaseName();
  const db = createDb(url, { poolMax: 20 });
  before(() => createMigratedDatabase(name, url));
  after(async () => {
    await db.destroy();
    await dropDatabase(name);
  });
  return db;
}

/**
 * The template of a pass of scripts/test.ts on the server at `url` (an admin URL): migrated once from empty, so every
 * migration still runs on each server the suite uses, then copied for every file that needs the schema
 * (TEST_PG_TEMPLATE): a copy takes about 0.4 s, a migration about 0.8 s, and some 130 files need one.
 */
export async function createMigratedTemplate(url: string): Promise<{ name: string; drop(): Promise<void> }> {
  const name = `onboard_template_${process.pid}`;
  await dropOrphanTemplates(url);
  await dropDatabase(name, url);
  await asAdmin(`create database ${name}`, url);
  const templateUrl = new URL(url);
  templateUrl.pathname = `/${name}`;
  // migrate() closes its pool: no session may stay connected to a template while it is copied.
  await migrate(templateUrl.toString());
  return { name, drop: () => dropDatabase(name, url) };
}

/**
 * Drops the templates of earlier passes whose process is gone: a failed pass ends at once (scripts/test.ts exits from
 * the failing step) and cannot drop its template on the way out. A live pass's template is left alone; the suite's
 * servers are on this machine, so the pid in a template's name is one of its processes.
 */
async function dropOrphanTemplates(url: string): Promise<void> {
  const templates = await asAdmin<{ datname: string }>(
    `select datname from pg_database where datname ~ '^onboard_template_[0-9]+$'`,
    url,
  );
  for (const { datname } of templates) {
    const pid = Number(datname.slice('onboard_template_'.length));
    if (pid === process.pid || isProcessRunning(pid)) continue;
    await dropDatabase(datname, url);
  }
}
