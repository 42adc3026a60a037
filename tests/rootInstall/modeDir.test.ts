// As root, from a checkout other users cannot enter (root's home directory is mode 0700: the usual place on a fresh
// server or container), `make run` starts and answers, and the test command starts its embedded PostgreSQL and runs a
// test file. Embedded PostgreSQL runs as an unprivileged user that cannot reach such a checkout; before the fix both
// crashed at once with `spawn .../initdb EACCES`. Skipped when not root (the problem does not exist then).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/infra/freePort';
import { projectRoot } from '../../src/paths';

const isRoot = process.getuid?.() === 0;

function run(
  cmd: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; until?: RegExp; timeoutMs: number },
): Promise<{ code: number | null; out: string; stop: () => Promise<void> }> {
  return new Promise((resolve) => {
    // Its own process group, so that stopping it stops make, npm and node beneath.
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, detached: true });
    let out = '';
    let settled = false;
    const stop = async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(-child.pid!, 'SIGTERM');
      await new Promise((r) => child.once('close', r));
    };
    const settle = (code: number | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ code, out, stop });
    };
    const timer = setTimeout(() => settle(null), opts.timeoutMs);
    const take = (d: Buffer) => {
      out += d.toString();
      if (opts.until?.test(out)) settle(0);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('close', (code) => settle(code));
  });
}

describe('make run and the test command as root from a mode-0700 checkout', { skip: !isRoot && 'not root' }, () => {
  const top = mkdtempSync(join(tmpdir(), 'onboard-0700-'));
  const checkout = join(top, 'onboard');
  let env: NodeJS.ProcessEnv;

  before(async () => {
    chmodSync(top, 0o700);
    execFileSync('git', ['clone', '-q', projectRoot, checkout]);
    // The dependencies as `npm ci` would leave them, without the minute and the registry: hard links of ours.
    execFileSync('cp', ['-al', join(projectRoot, 'node_modules'), join(checkout, 'node_modules')]);
    const marker = join(checkout, 'node_modules/.installed');
    execFileSync('touch', [marker]);
    const lock = statSync(join(checkout, 'package-lock.json'));
    utimesSync(marker, new Date(), new Date(lock.mtimeMs + 1000)); // newer than the lockfile: make skips npm ci
    env = {
      ...process.env,
      PORT: String(await freePort()),
      LOCALNET_PORT: String(await freePort()),
      EMBEDDED_PG_PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
      CI: '',
    };
    delete env.NODE_TEST_CONTEXT; // else the inner test runner takes itself for a nested run and skips its files
  });

  after(() => {
    rmSync(top, { recursive: true, force: true });
  });

  test('make run starts, prints its banner and answers /health', async () => {
    assert.equal(statSync(top).mode & 0o777, 0o700);
    const started = await run('make', ['run'], { cwd: checkout, env, until: /stop with Ctrl-C/, timeoutMs: 180_000 });
    try {
      assert.equal(started.code, 0, started.out);
      assert.doesNotMatch(started.out, /EACCES|\n\s+at /, 'no permission error, no stack trace');
      assert.match(started.out, /embedded PostgreSQL in \/var\/tmp\/onboard-postgres\/postgres-[0-9a-f]{12}/);
      const health = await fetch(`http://127.0.0.1:${env.PORT}/health`);
      assert.equal(health.status, 200);
    } finally {
      await started.stop();
    }
  });

  test('the test command starts its embedded PostgreSQL and runs a test file', async () => {
    const tested = await run('npm', ['test', '--', '--only=src/domain/errors.test.ts'], {
      cwd: checkout,
      env,
      timeoutMs: 180_000,
    });
    assert.equal(tested.code, 0, tested.out);
    assert.doesNotMatch(tested.out, /EACCES/);
    assert.match(tested.out, /ℹ pass [1-9]/);
  });
});
