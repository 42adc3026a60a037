// The first run on an empty database seeds a demo app once; its printed secret key passes the gate.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedDemoOnFirstRun } from '../../src/cli/demoSeed';
import { call } from '../support/http';
import { startTestService, type TestService } from '../support/service';

describe('demo seed on first run', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(async () => {
    await svc?.stop();
  });

  test('seeds once, even when two starts race, and the printed secret key works', async () => {
    const lines: string[][] = [[], []];
    const results = await Promise.all([0, 1].map((i) => seedDemoOnFirstRun(svc.deps, (l) => lines[i]!.push(l), svc.url)));
    assert.deepEqual(results.sort(), [false, true]);
    const printed = lines.flat().join('\n');
    const secret = printed.match(/sec_testnet_[A-Za-z0-9]{40}/)?.[0];
    assert.ok(secret, printed);
    assert.match(printed, /pub_testnet_[A-Za-z0-9]{40}/);
    assert.match(printed, /curl -s -X POST/);
    assert.equal(await seedDemoOnFirstRun(svc.deps, () => {}, svc.url), false, 'a restart does not seed again');
    const res = await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', {
      headers: { 'x-service-api-key': secret },
      body: { publicKey: 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2' },
    });
    assert.equal(res.body.code, 'WALLET_NOT_FOUND', 'the gate accepted the demo key');
  });
});
