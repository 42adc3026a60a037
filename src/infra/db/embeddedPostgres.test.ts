import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { explainFailure, reachableDataDir, traversableByOthers } from './embeddedPostgres';

describe('embedded PostgreSQL as root: what its postgres user can reach', () => {
  test('a path under a directory others cannot enter is not traversable; chmod o+x makes it so', () => {
    const top = mkdtempSync(join(tmpdir(), 'onboard-reach-')); // mkdtemp: mode 0700
    const inner = join(top, 'checkout', '.data', 'postgres');
    mkdirSync(inner, { recursive: true });
    try {
      assert.equal(traversableByOthers(inner), false);
      chmodSync(top, 0o711);
      assert.equal(traversableByOthers(inner), true);
      assert.equal(traversableByOthers('/'), true);
    } finally {
      rmSync(top, { recursive: true, force: true });
    }
  });

  test('as root, an unreachable data directory gets a stand-in under /var/tmp named after it; a reachable one is kept', () => {
    const top = mkdtempSync(join(tmpdir(), 'onboard-reach-'));
    const dir = join(top, '.data', 'postgres');
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    try {
      const chosen = reachableDataDir(dir);
      if (process.getuid?.() === 0) {
        assert.match(chosen, /^\/var\/tmp\/onboard-postgres\/postgres-[0-9a-f]{12}$/);
        assert.equal(reachableDataDir(dir), chosen, 'the same directory at every start');
        assert.notEqual(reachableDataDir(join(top, 'other', 'postgres')), chosen);
      } else {
        assert.equal(chosen, dir, 'not root: the configured directory');
      }
      chmodSync(top, 0o755);
      assert.equal(reachableDataDir(dir), dir);
    } finally {
      rmSync(top, { recursive: true, force: true });
    }
  });
});

describe('a failure of the embedded database is one line with the fix', () => {
  const ctx = { dataDir: '/srv/data/postgres', port: 54329, log: [] as string[] };
  const cases: [string, unknown, string[], RegExp][] = [
    [
      'port in use',
      undefined,
      ['LOG:  could not bind IPv4 address "127.0.0.1": Address already in use'],
      /port 54329: it is in use.*EMBEDDED_PG_PORT/,
    ],
    [
      'another version',
      new Error('FATAL:  database files are incompatible with server'),
      [],
      /another PostgreSQL version.*make clean/,
    ],
    [
      'permission',
      new Error('initdb: error: could not access directory "/srv/data/postgres": Permission denied'),
      [],
      /cannot use \/srv\/data\/postgres.*ONBOARD_DATA_DIR/,
    ],
    [
      'no postgres user',
      new Error('Failed to create and initialize a new user on this system.'),
      [],
      /`postgres` system user/,
    ],
    [
      'anything else',
      new Error('initdb: error: invalid locale settings'),
      [],
      /could not create its cluster in \/srv\/data\/postgres: initdb: error: invalid locale settings; remove/,
    ],
  ];
  for (const [name, err, log, expected] of cases) {
    test(name, () => {
      const stage = name === 'anything else' ? 'initialise' : 'start';
      const message = explainFailure(stage, err, { ...ctx, log }).message;
      assert.match(message, expected);
      assert.doesNotMatch(message, /\n/, 'one line');
      assert.doesNotMatch(message, /\bat .*\.js:\d+/, 'no stack');
    });
  }
});
