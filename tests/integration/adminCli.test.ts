// The admin CLI: create-app prints working keys once (they pass the gate), revoke-key and add-origin take effect, bad
// arguments are usage errors; one run as a real process (`tsx src/cli/admin.ts`, what `npm run admin` runs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { runAdminCommand, UsageError } from '../../src/cli/adminCommands';
import { projectRoot } from '../../src/paths';
import { freshDatabase } from '../support/database';
import { call } from '../support/http';
import { startTestService, type TestService } from '../support/service';

const VALID_G = 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2';

function field(lines: string[], label: string): string {
  const line = lines.find((l) => l.startsWith(label));
  assert.ok(line, `no "${label}" line in:\n${lines.join('\n')}`);
  return line.slice(label.length).trim().split(' ')[0]!;
}

describe('admin CLI', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(async () => {
    await svc?.stop();
  });

  test('create-app prints an app and keys that pass the gate; revoke-key and add-origin take effect', async () => {
    const lines: string[] = [];
    await runAdminCommand(svc.deps, ['create-app', '--name', 'Demo', '--network', 'testnet', '--owner-email', 'Owner@Example.com'], (l) => lines.push(l));
    const appId = field(lines, 'app:');
    const secret = field(lines, 'secret key:');
    const publishable = field(lines, 'publishable key:');
    assert.match(appId, /^app_[0-9A-Za-z]{22}$/);
    assert.match(secret, /^sec_testnet_[0-9A-Za-z]{40}$/);
    assert.match(publishable, /^pub_testnet_[0-9A-Za-z]{40}$/);
    const ok = await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', { headers: { 'x-service-api-key': secret }, body: { publicKey: VALID_G } });
    assert.equal(ok.body.code, 'WALLET_NOT_FOUND', 'the key passed the gate');
    // No origin was given: browser requests are refused until one is added.
    const browser = { 'x-service-api-key': publishable, origin: 'https://shop.example.com' };
    const refused = await call(svc.url, 'startEmailSignIn', 'POST', '/v1/auth/email/start', { headers: browser, body: { email: 'u@example.com' } });
    assert.equal(refused.body.code, 'ORIGIN_NOT_ALLOWED');
    await runAdminCommand(svc.deps, ['add-origin', '--app', appId, '--origin', 'https://shop.example.com'], () => {});
    const allowed = await call(svc.url, 'startEmailSignIn', 'POST', '/v1/auth/email/start', { headers: browser, body: { email: 'u@example.com' } });
    assert.notEqual(allowed.body.code, 'ORIGIN_NOT_ALLOWED');
    assert.equal(allowed.headers.get('access-control-allow-origin'), 'https://shop.example.com');
    // The same owner email reuses the operator.
    const again: string[] = [];
    await runAdminCommand(svc.deps, ['create-app', '--name', 'Second', '--network', 'mainnet', '--owner-email', 'owner@example.com'], (l) => again.push(l));
    assert.equal(field(again, 'operator:'), field(lines, 'operator:'));
    assert.match(field(again, 'secret key:'), /^sec_mainnet_/);
    // create-key, then revoke it.
    const keyLines: string[] = [];
    await runAdminCommand(svc.deps, ['create-key', '--app', appId, '--type', 'secret', '--network', 'testnet'], (l) => keyLines.push(l));
    const keyId = field(keyLines, 'key id:');
    const extra = field(keyLines, 'secret key:');
    assert.equal((await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', { headers: { 'x-service-api-key': extra }, body: { publicKey: VALID_G } })).status, 404);
    await runAdminCommand(svc.deps, ['revoke-key', '--key', keyId], () => {});
    const revoked = await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', { headers: { 'x-service-api-key': extra }, body: { publicKey: VALID_G } });
    assert.equal(revoked.body.code, 'API_KEY_NOT_FOUND');
  });

  test('bad arguments are usage errors', async () => {
    const cases = [
      [],
      ['frobnicate'],
      ['create-app', '--name', 'X', '--network', 'futurenet', '--owner-email', 'a@b.c'],
      ['create-app', '--network', 'testnet', '--owner-email', 'a@b.c'],
      ['create-app', '--name', 'X', '--network', 'testnet', '--owner-email', 'a@b.c', '--origin', 'https://x.example.com/path'],
      ['create-key', '--app', 'app_missing', '--type', 'secret', '--network', 'testnet'],
    ];
    for (const argv of cases) await assert.rejects(runAdminCommand(svc.deps, argv, () => {}), UsageError, argv.join(' '));
  });

  test('as a process: create-app against DATABASE_URL prints the keys and exits 0; a usage error exits 2', async () => {
    const db = await freshDatabase();
    try {
      const tsx = join(projectRoot, 'node_modules/.bin/tsx');
      const env = { ...process.env, DATABASE_URL: db.url };
      const ok = spawnSync(tsx, ['src/cli/admin.ts', 'create-app', '--name', 'Proc', '--network', 'testnet', '--owner-email', 'p@example.com'], { cwd: projectRoot, env, encoding: 'utf8' });
      assert.equal(ok.status, 0, ok.stderr);
      assert.match(ok.stdout, /secret key: +sec_testnet_[0-9A-Za-z]{40}/);
      assert.match(ok.stdout, /shown only now/);
      const bad = spawnSync(tsx, ['src/cli/admin.ts', 'create-app', '--name', 'Proc'], { cwd: projectRoot, env, encoding: 'utf8' });
      assert.equal(bad.status, 2);
      assert.match(bad.stderr, /usage: npm run admin/);
    } finally {
      await db.drop();
    }
  });
});
