// The README's five-minute tour works verbatim: the service is started as `make run` starts it (its own data
// directory and ports), and the tour's shell blocks run in order, as pasted into one terminal, from a directory where
// `.data` is that data directory. Every block must succeed and say what the README says it shows.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/infra/freePort';
import { projectRoot } from '../../src/paths';

/** The ```sh blocks of the README's tour section, in order. */
export function tourBlocks(readme: string): string[] {
  const start = readme.indexOf('## A five-minute tour');
  const end = readme.indexOf('\n## ', start + 1);
  assert.ok(start >= 0 && end > start, 'the README has a tour section');
  return [...readme.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
}

function run(
  cmd: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe('the README tour', () => {
  const work = mkdtempSync(join(tmpdir(), 'onboard-tour-'));
  const dataDir = join(work, 'data');
  const shell = join(work, 'shell'); // the "repository root" the reader types in
  let env: NodeJS.ProcessEnv;
  let service: ChildProcess | undefined;
  let banner = '';

  before(async () => {
    const [port, localnetPort, pgPort] = [await freePort(), await freePort(), await freePort()];
    env = {
      ...process.env,
      ONBOARD_DATA_DIR: dataDir,
      PORT: String(port),
      LOCALNET_PORT: String(localnetPort),
      EMBEDDED_PG_PORT: String(pgPort),
      LOG_LEVEL: 'warn',
    };
    service = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: projectRoot, env });
    service.stderr?.on('data', (d: Buffer) => (banner += d.toString()));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no banner within 150 s:\n${banner}`)), 150_000);
      service!.stdout?.on('data', (d: Buffer) => {
        banner += d.toString();
        if (banner.includes('stop with Ctrl-C')) {
          clearTimeout(timer);
          resolve();
        }
      });
      service!.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the service exited (${code}):\n${banner}`));
      });
    });
    // What the reader has: the checkout, with `.data` being the service's data directory.
    mkdirSync(shell);
    symlinkSync(dataDir, join(shell, '.data'));
    for (const entry of ['package.json', 'node_modules', 'src', 'sdk', 'generated', 'tsconfig.json'])
      symlinkSync(join(projectRoot, entry), join(shell, entry));
  });

  after(async () => {
    if (service && service.exitCode === null) {
      service.kill('SIGTERM');
      await new Promise((resolve) => service!.once('exit', resolve));
    }
    rmSync(work, { recursive: true, force: true });
  });

  test('every block runs verbatim, in order, and shows what the README says', async () => {
    const blocks = tourBlocks(readFileSync(join(projectRoot, 'README.md'), 'utf8'));
    assert.equal(blocks.length, 5, 'keys, sign-in, wallet, payment, history');
    // One terminal: the blocks run in one shell, so the variables of the first stay set.
    const script = ['set -euo pipefail', ...blocks.map((b, i) => `echo "=== block ${i + 1}"\n${b}`)].join('\n');
    const { code, out } = await run('bash', ['-c', script], { cwd: shell, env });
    assert.equal(code, 0, out);
    const part = (n: number) => out.split(`=== block ${n}\n`)[1]!.split('=== block')[0]!;
    assert.match(part(1), /^app +name +network/m);
    assert.match(part(1), /Demo app +testnet +active +demo@onboard\.local/);
    assert.match(part(1), /sec_testnet_[0-9A-Za-z]{4}\.\.\. +secret/);
    assert.doesNotMatch(part(1), /sec_testnet_[0-9A-Za-z]{40}/, 'no secret in clear');
    assert.match(part(2), /signed in: user usr_/);
    assert.match(part(2), /wallet: +G[A-Z2-7]{55} \(testnet, funded\)/);
    assert.match(part(3), /"code": "SDK_WALLET_BALANCES_FETCHED"|"code": "[A-Z_]+"/);
    assert.match(part(3), /"asset": "native"/);
    assert.match(part(4), /"code": "TX_RUN_COMPLETED"/);
    // success at once, or pending and then followed to SUCCESS by --wait
    assert.match(part(4), /"status": "success"|SUCCESS/);
    assert.match(part(5), /"summary": "Sent 1 XLM to G/);
    assert.match(part(5), /"status": "SUCCESS"/);
  });

  test('the banner says once what it states, and nothing it does not', () => {
    assert.equal(banner.split('is listening on').length - 1, 1, 'one banner');
    assert.match(banner, /keys: +written to .*demo-keys\.env \(mode 0600/);
    assert.match(banner, /app wallet: +funded from friendbot/);
    assert.doesNotMatch(banner, /not funded/);
    assert.doesNotMatch(banner, /sponsor\.balance\.low/);
  });
});
