// The first run on an empty database seeds a demo app once; its keys file (mode 0600) sources in a shell and its
// secret key passes the gate. On localnet the
// demo app gets a demo USDC (issuer derived from the service secret, configured as its asset, 100000 held by its
// distribution wallet), and a restart finds it all in place and pays nothing twice.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEMO_APP_NAME, seedDemoOnFirstRun, seedDemoUsdc } from '../../src/cli/demoSeed';
import { findApp, type App } from '../../src/domain/apps/store';
import { appWalletFor } from '../../src/domain/wallets/treasuryWallets';
import { demoUsdcIssuer } from '../../src/domain/treasury/demoUsdc';
import { call } from '../support/http';
import { startTestService, type TestService } from '../support/service';
import { gatewayOf } from '../support/funding';

describe('demo seed on first run', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({}, { closeLedgersEveryMs: 100 });
  });
  after(async () => {
    await svc?.stop();
  });

  const demoApp = async (): Promise<App> => {
    const row = await svc.deps.db('apps').where({ name: DEMO_APP_NAME }).first('id');
    return (await findApp(svc.deps.db, row.id))!;
  };

  test('seeds once, even when two starts race; the keys go to a 0600 file that a shell sources, and they work', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'onboard-demo-keys-'));
    const keysFile = join(dir, 'demo-keys.env');
    const lines: string[][] = [[], []];
    const results = await Promise.all(
      [0, 1].map((i) => seedDemoOnFirstRun(svc.deps, (l) => lines[i]!.push(l), svc.url, { keysFile })),
    );
    assert.deepEqual(results.sort(), [false, true]);
    const printed = lines.flat().join('\n');
    assert.doesNotMatch(printed, /sec_testnet_/, 'the secret key is in the file, not in the output');
    assert.match(printed, new RegExp(`keys: +written to ${keysFile.replace(/[.]/g, '\\.')} \\(mode 0600`));
    assert.match(printed, /app wallet: +funded from friendbot/);
    assert.doesNotMatch(printed, /not funded/);
    assert.equal(statSync(keysFile).mode & 0o777, 0o600);
    // What `. .data/demo-keys.env` gives a shell.
    const sourced = execFileSync('bash', ['-c', `set -a; . '${keysFile}'; env`], { encoding: 'utf8' });
    const env = Object.fromEntries(
      sourced.split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    assert.equal(env.ONBOARD_URL, svc.url);
    assert.equal(env.ONBOARD_APP_ID, (await demoApp()).id);
    assert.match(env.ONBOARD_PUBLISHABLE_KEY ?? '', /^pub_testnet_[A-Za-z0-9]{40}$/);
    const before = readFileSync(keysFile, 'utf8');
    assert.equal(
      await seedDemoOnFirstRun(svc.deps, () => {}, svc.url, { keysFile }),
      false,
      'a restart does not seed again',
    );
    assert.equal(readFileSync(keysFile, 'utf8'), before, 'a restart leaves the keys file as it is');
    const res = await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', {
      headers: { 'x-service-api-key': env.ONBOARD_SECRET_KEY ?? '' },
      body: { publicKey: 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2' },
    });
    assert.equal(res.body.code, 'WALLET_NOT_FOUND', 'the gate accepted the demo secret key');
    rmSync(dir, { recursive: true, force: true });
  });

  test('on localnet: demo USDC configured on the demo app, 100000 held by its distribution wallet; a re-run pays nothing twice', async () => {
    const asset = `USDC:${demoUsdcIssuer(svc.deps.secrets).publicKey()}`;
    const app = await demoApp();
    assert.deepEqual(app.assets, [asset], 'the seed of the previous test configured it');
    const gw = gatewayOf(svc);
    const distribution = (await appWalletFor(svc.deps.db, app.id, 'testnet', 'distribution'))!;
    const [line] = await gw.trustlines(distribution.publicKey, [asset]);
    assert.equal(line?.balanceStroops, 100_000n * 10_000_000n);
    assert.ok(
      await svc.deps
        .db('audit_log')
        .where({ wallet_id: distribution.id, action: 'key.decrypt', purpose: 'treasury.trustline' })
        .first(),
    );

    const printed: string[] = [];
    assert.equal(await seedDemoOnFirstRun(svc.deps, (l) => printed.push(l), svc.url), false);
    assert.match(
      printed.join('\n'),
      /already configured[\s\S]*holds 100000 USDC or more[\s\S]*ready/,
      printed.join('\n'),
    );
    assert.deepEqual((await demoApp()).assets, [asset]);
    assert.equal(
      (await gw.trustlines(distribution.publicKey, [asset]))[0]?.balanceStroops,
      100_000n * 10_000_000n,
      'nothing paid twice',
    );
  });

  test('not on localnet: skipped, with a line saying so', async () => {
    const printed: string[] = [];
    const elsewhere = { ...svc.deps, stellar: { rpcUrls: { testnet: 'http://127.0.0.1:9/rpc' } } };
    await seedDemoUsdc(elsewhere, await demoApp(), (l) => printed.push(l));
    assert.deepEqual(printed, ['  demo USDC: skipped (testnet is not served by localnet here)']);
  });
});
