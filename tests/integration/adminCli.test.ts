// The admin CLI: create-app prints working keys once (they pass the gate) and funds a testnet app's wallet from
// friendbot (a clear line, not a failure, when friendbot is out of reach), revoke-key and add-origin take effect, bad
// arguments are usage errors; runs as a real process (`tsx src/cli/admin.ts`, what `npm run admin` runs) against a
// configured RPC, without any chain, and with the localnet of `make run` not running (started for the command).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Networks } from '@stellar/stellar-sdk';
import { runAdminCommand, UsageError } from '../../src/cli/adminCommands';
import { findApp } from '../../src/domain/apps/store';
import { createDb } from '../../src/infra/db/database';
import { freePort } from '../../src/infra/freePort';
import { createStellarGateway } from '../../src/infra/stellar/gateway';
import { startLocalnet } from '../../src/localnet/index';
import { projectRoot } from '../../src/paths';
import { freshDatabase } from '../support/database';
import { call } from '../support/http';
import { startTestService, type TestService } from '../support/service';
import { gatewayOf } from '../support/funding';

const VALID_G = 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2';

function field(lines: string[], label: string): string {
  const line = lines.find((l) => l.startsWith(label));
  assert.ok(line, `no "${label}" line in:\n${lines.join('\n')}`);
  return line.slice(label.length).trim().split(' ')[0]!;
}

/** Runs `tsx src/cli/admin.ts` without blocking this process (the test service's localnet must keep closing ledgers). */
function admin(
  args: string[],
  env: Record<string, string>,
): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      join(projectRoot, 'node_modules/.bin/tsx'),
      ['src/cli/admin.ts', ...args],
      { cwd: projectRoot, env: { ...process.env, ...env }, encoding: 'utf8' },
      (err, stdout, stderr) => resolve({ status: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('admin CLI', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({}, { closeLedgersEveryMs: 100 });
  });
  after(async () => {
    await svc?.stop();
  });

  test('create-app prints an app and keys that pass the gate; revoke-key and add-origin take effect', async () => {
    const lines: string[] = [];
    await runAdminCommand(
      svc.deps,
      ['create-app', '--name', 'Demo', '--network', 'testnet', '--owner-email', 'Owner@Example.com'],
      (l) => lines.push(l),
    );
    const appId = field(lines, 'app:');
    const secret = field(lines, 'secret key:');
    const publishable = field(lines, 'publishable key:');
    assert.match(appId, /^app_[0-9A-Za-z]{22}$/);
    assert.match(secret, /^sec_testnet_[0-9A-Za-z]{40}$/);
    assert.match(publishable, /^pub_testnet_[0-9A-Za-z]{40}$/);
    // The app wallet was funded from friendbot (the service's localnet), after the keys were printed.
    const wallet = field(lines, 'app wallet:');
    assert.ok(
      lines.indexOf(lines.find((l) => l.startsWith('secret key:'))!) < lines.findIndex((l) => l.startsWith('funding:')),
    );
    assert.match(lines.at(-1)!, /^funding: +done: the app wallet holds 10,000 XLM from friendbot$/);
    assert.equal((await gatewayOf(svc).loadAccount(wallet))?.balanceStroops, 100_000_000_000n);
    const ok = await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', {
      headers: { 'x-service-api-key': secret },
      body: { publicKey: VALID_G },
    });
    assert.equal(ok.body.code, 'WALLET_NOT_FOUND', 'the key passed the gate');
    // No origin was given: browser requests are refused until one is added.
    const browser = { 'x-service-api-key': publishable, origin: 'https://shop.example.com' };
    const refused = await call(svc.url, 'startEmailSignIn', 'POST', '/v1/auth/email/start', {
      headers: browser,
      body: { email: 'u@example.com' },
    });
    assert.equal(refused.body.code, 'ORIGIN_NOT_ALLOWED');
    await runAdminCommand(svc.deps, ['add-origin', '--app', appId, '--origin', 'https://shop.example.com'], () => {});
    const allowed = await call(svc.url, 'startEmailSignIn', 'POST', '/v1/auth/email/start', {
      headers: browser,
      body: { email: 'u@example.com' },
    });
    assert.notEqual(allowed.body.code, 'ORIGIN_NOT_ALLOWED');
    assert.equal(allowed.headers.get('access-control-allow-origin'), 'https://shop.example.com');
    // The same owner email reuses the operator.
    const again: string[] = [];
    await runAdminCommand(
      svc.deps,
      ['create-app', '--name', 'Second', '--network', 'mainnet', '--owner-email', 'owner@example.com'],
      (l) => again.push(l),
    );
    assert.equal(field(again, 'operator:'), field(lines, 'operator:'));
    assert.match(field(again, 'secret key:'), /^sec_mainnet_/);
    assert.match(
      again.at(-1)!,
      /^funding: +none on mainnet \(no friendbot\): send XLM to G[A-Z2-7]{55} before its users are funded$/,
    );
    // create-key, then revoke it.
    const keyLines: string[] = [];
    await runAdminCommand(svc.deps, ['create-key', '--app', appId, '--type', 'secret', '--network', 'testnet'], (l) =>
      keyLines.push(l),
    );
    const keyId = field(keyLines, 'key id:');
    const extra = field(keyLines, 'secret key:');
    assert.equal(
      (
        await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', {
          headers: { 'x-service-api-key': extra },
          body: { publicKey: VALID_G },
        })
      ).status,
      404,
    );
    await runAdminCommand(svc.deps, ['revoke-key', '--key', keyId], () => {});
    const revoked = await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', {
      headers: { 'x-service-api-key': extra },
      body: { publicKey: VALID_G },
    });
    assert.equal(revoked.body.code, 'API_KEY_NOT_FOUND');

    // list-apps and list-keys: every fact but never a secret (nor a hash).
    const apps: string[] = [];
    await runAdminCommand(svc.deps, ['list-apps'], (l) => apps.push(l));
    assert.match(apps[0]!, /^app +name +network +status +owner +created +app wallet$/);
    const row = apps.find((l) => l.startsWith(appId));
    assert.ok(row, apps.join('\n'));
    assert.match(
      row,
      new RegExp(`^${appId} +Demo +testnet +active +owner@example\\.com +\\d{4}-\\d{2}-\\d{2} +${wallet}$`),
    );
    assert.ok(apps.some((l) => / Second +mainnet +active /.test(l)));
    const keys: string[] = [];
    await runAdminCommand(svc.deps, ['list-keys', '--app', appId], (l) => keys.push(l));
    const listed = keys.join('\n');
    assert.match(keys[0]!, /^key +prefix +type +network +label +expires +last used +revoked$/);
    assert.equal(keys.length, 2 + 3, 'a header, a rule and the three keys of the app');
    assert.match(
      listed,
      new RegExp(
        `${keyId} +sec_testnet_[0-9A-Za-z]{4}\\.\\.\\. +secret +testnet +- +never +\\d{4}-\\d{2}-\\d{2}T\\S+ +\\d{4}-\\d{2}-\\d{2}$`,
        'm',
      ),
      'used once, then revoked',
    );
    assert.match(
      listed,
      /pub_testnet_[0-9A-Za-z]{4}\.\.\. +publishable +testnet +created by admin CLI +never +\d{4}-/,
      'used above: last use is shown',
    );
    for (const secretKey of [secret, publishable, extra]) assert.ok(!listed.includes(secretKey), 'no key in clear');
    const hashes = await svc.deps.db('api_keys').where({ app_id: appId }).pluck('key_hash');
    for (const hash of hashes as string[]) assert.ok(!listed.includes(hash), 'no hash either');
    await assert.rejects(
      runAdminCommand(svc.deps, ['list-keys', '--app', 'app_none'], () => {}),
      UsageError,
    );
  });

  test('create-app with friendbot out of reach: the app and keys are created, FRIENDBOT_NOT_AVAILABLE in one line', async () => {
    const deadFriendbot = `http://127.0.0.1:${await freePort()}/friendbot`;
    const testnet = createStellarGateway({
      network: 'testnet',
      rpcUrl: svc.localnet!.rpcUrl,
      networkPassphrase: Networks.TESTNET,
      friendbotUrl: deadFriendbot,
    });
    const lines: string[] = [];
    await runAdminCommand(
      { ...svc.deps, stellar: { rpcUrls: { testnet: svc.localnet!.rpcUrl }, gateways: { testnet } } },
      ['create-app', '--name', 'No bot', '--network', 'testnet', '--owner-email', 'nobot@example.com'],
      (l) => lines.push(l),
    );
    assert.ok(await findApp(svc.deps.db, field(lines, 'app:')), 'the app exists');
    assert.match(field(lines, 'secret key:'), /^sec_testnet_/);
    const wallet = field(lines, 'app wallet:');
    assert.match(lines.join('\n'), /funding: +FRIENDBOT_NOT_AVAILABLE: friendbot could not fund G/);
    assert.equal(lines.at(-1)!.trim(), `the app was created; fund its wallet later by sending XLM to ${wallet}`);
    assert.equal(await gatewayOf(svc).loadAccount(wallet), undefined);
  });

  test('bad arguments are usage errors', async () => {
    const cases = [
      [],
      ['frobnicate'],
      ['create-app', '--name', 'X', '--network', 'futurenet', '--owner-email', 'a@b.c'],
      ['create-app', '--network', 'testnet', '--owner-email', 'a@b.c'],
      [
        'create-app',
        '--name',
        'X',
        '--network',
        'testnet',
        '--owner-email',
        'a@b.c',
        '--origin',
        'https://x.example.com/path',
      ],
      ['create-key', '--app', 'app_missing', '--type', 'secret', '--network', 'testnet'],
    ];
    for (const argv of cases)
      await assert.rejects(
        runAdminCommand(svc.deps, argv, () => {}),
        UsageError,
        argv.join(' '),
      );
  });

  test('as a process: create-app funds the app wallet through the configured RPC and exits 0; a usage error exits 2', async () => {
    const db = await freshDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), 'onboard-admin-'));
    try {
      const env = { DATABASE_URL: db.url, ONBOARD_DATA_DIR: dataDir, STELLAR_TESTNET_RPC_URL: svc.localnet!.rpcUrl };
      const ok = await admin(
        ['create-app', '--name', 'Proc', '--network', 'testnet', '--owner-email', 'p@example.com'],
        env,
      );
      assert.equal(ok.status, 0, ok.stderr);
      assert.match(ok.stdout, /secret key: +sec_testnet_[0-9A-Za-z]{40}/);
      assert.match(ok.stdout, /shown only now/);
      assert.match(ok.stdout, /funding: +done/);
      const wallet = /app wallet: +(G[A-Z2-7]{55})/.exec(ok.stdout)![1]!;
      assert.ok(await gatewayOf(svc).loadAccount(wallet), 'the app wallet exists on the ledger');
      const bad = spawnSync(
        join(projectRoot, 'node_modules/.bin/tsx'),
        ['src/cli/admin.ts', 'create-app', '--name', 'Proc'],
        { cwd: projectRoot, env: { ...process.env, ...env }, encoding: 'utf8' },
      );
      assert.equal(bad.status, 2);
      assert.match(bad.stderr, /usage: npm run admin/);
    } finally {
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('as a process without any chain (LOCALNET=off, no RPC URL): the app is created, exit 0, a one-line reason, no stack trace', async () => {
    const db = await freshDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), 'onboard-admin-'));
    try {
      const res = await admin(
        ['create-app', '--name', 'Offline', '--network', 'testnet', '--owner-email', 'o@example.com'],
        { DATABASE_URL: db.url, ONBOARD_DATA_DIR: dataDir, LOCALNET: 'off', STELLAR_TESTNET_RPC_URL: '' },
      );
      assert.equal(res.status, 0, res.stderr);
      assert.match(res.stdout, /secret key: +sec_testnet_/);
      assert.match(res.stdout, /funding: +FRIENDBOT_NOT_AVAILABLE: No Stellar RPC is configured for testnet/);
      assert.doesNotMatch(res.stdout + res.stderr, /\n\s+at /, 'no stack trace');
      const appId = /app: +(app_[0-9A-Za-z]+)/.exec(res.stdout)![1]!;
      const knex = createDb(db.url, { poolMax: 1 });
      try {
        assert.ok(await findApp(knex, appId), 'the app was created');
      } finally {
        await knex.destroy();
      }
    } finally {
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('as a process with the localnet of `make run` not running: started from its state directory for the command, which keeps the funded account', async () => {
    const db = await freshDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), 'onboard-admin-'));
    try {
      const port = await freePort();
      const res = await admin(
        ['create-app', '--name', 'Local', '--network', 'testnet', '--owner-email', 'l@example.com'],
        {
          DATABASE_URL: db.url,
          ONBOARD_DATA_DIR: dataDir,
          LOCALNET: 'on',
          LOCALNET_PORT: String(port),
          STELLAR_TESTNET_RPC_URL: '',
        },
      );
      assert.equal(res.status, 0, res.stderr);
      assert.match(
        res.stdout,
        new RegExp(`localnet is not running: started from ${join(dataDir, 'localnet')} for this command`),
      );
      assert.match(res.stdout, /funding: +done/);
      const wallet = /app wallet: +(G[A-Z2-7]{55})/.exec(res.stdout)![1]!;
      // What the service's localnet will load on its next start.
      const localnet = await startLocalnet({ port: 0, ledgerCloseMs: 'manual', dataDir: join(dataDir, 'localnet') });
      try {
        const gw = createStellarGateway({
          network: 'testnet',
          rpcUrl: localnet.rpcUrl,
          networkPassphrase: Networks.TESTNET,
        });
        assert.equal((await gw.loadAccount(wallet))?.balanceStroops, 100_000_000_000n);
      } finally {
        await localnet.stop();
      }
    } finally {
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
