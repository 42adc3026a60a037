// A fresh, empty database per test file on the suite's PostgreSQL (embedded by default, the machine's with CI=true).
// scripts/test.ts sets TEST_PG_ADMIN_URL; each call creates a uniquely named database and drops it afterwards.
import { randomBytes } from 'node:crypto';
import { after, before } from 'node:test';
import pg from 'pg';
import { createDb, migrateToLatest, type Db } from '../../src/infra/db/database';

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
async function createTestDatabase(name: string): Promise<void> {
  await asAdmin(`create database ${name}`);
  await asAdmin(`alter database ${name} set synchronous_commit = off`);
}

async function asAdmin(sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/** A unique database name and its URL on the suite's server; nothing is created yet. */
function newDatabaseName(): { name: string; url: string } {
  const name = `onboard_t_${randomBytes(6).toString('hex')}`;
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

export async function freshDatabase(): Promise<TestDatabase> {
  const { name, url } = newDatabaseName();
  await createTestDatabase(name);
  return { url, drop: () => asAdmin(`drop database if exists ${name} with (force)`) };
}

/**
 * A fresh database with the service's schema for the test file that calls it (at its top level): created and
 * migrated before its tests, dropped after. The knex handle is returned at once (it connects on first use), with a
 * pool of 20 so concurrency tests can hold many connections.
 */
export function useMigratedDatabase(): Db {
  const { name, url } = newDatabaseName();
  const db = createDb(url, { poolMax: 20 });
  before(async () => {
    await createTestDatabase(name);
    await migrateToLatest(db);
  });
  after(async () => {
    await db.destroy();
    await asAdmin(`drop database if exists ${name} with (force)`);
  });
  return db;
}
