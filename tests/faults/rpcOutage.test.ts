// A fault test of issue 22: the Stellar RPC unreachable for a while (a proxy in front of the localnet cut and restored:
// connections refused, as from a host that is down). Meanwhile a payment asked for answers 503 STELLAR_UNAVAILABLE and
// leaves no record, readiness says the network is down, and a payment sent just before the cut is applied by the
// chain unseen; once the RPC is back, the service confirms that one from the chain, new payments go through, and the
// bank check (tests/support/bankCheck.ts) holds. FAULT_RPC_OUTAGE_MS sets the outage (3 s here; the 30 s
// with `make faults`).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createStellarGateway, type StellarGateway } from '../../src/infra/stellar/gateway';
import { startLocalnet, type Localnet } from '../../src/localnet/index';
import { bankCheck, payingUsers, untilSettled, xlmPayment } from '../support/bankCheck';
import { cutProxy, type CutProxy } from '../support/cutProxy';
import { freshDatabase, type TestDatabase } from '../support/database';
import { closeLedgersEvery, eventually } from '../support/funding';
import { startTestService, type TestService } from '../support/service';
import type { UserClient } from '../support/users';

const OUTAGE_MS = Number(process.env.FAULT_RPC_OUTAGE_MS ?? 3_000);

describe('fault: the Stellar RPC unreachable for a while', () => {
  let net: Localnet;
  let proxy: CutProxy;
  let chain: StellarGateway;
  let database: TestDatabase;
  let svc: TestService;
  let users: UserClient[];
  let appId: string;
  let destination: string;

  before(async () => {
    net = await startLocalnet({ ledgerCloseMs: 'manual' });
    const rpc = new URL(net.rpcUrl);
    proxy = await cutProxy({ host: rpc.hostname, port: Number(rpc.port) });
    chain = createStellarGateway({ network: 'testnet', rpcUrl: net.rpcUrl, networkPassphrase: net.networkPassphrase });
    database = await freshDatabase();
    svc = await startTestService(
      {
        STELLAR_TESTNET_RPC_URL: `${proxy.url}${rpc.pathname}`,
        // Answer once the RPC accepted a payment: the ledger is closed by the test.
        TX_CONFIRM_WAIT_MS: '0',
        TX_CONFIRM_INTERVAL_MS: '200',
      },
      { database },
    );
    const stop = closeLedgersEvery({ localnet: net });
    try {
      ({ appId, users, destination } = await payingUsers(svc, 3));
    } finally {
      stop();
    }
  });
  after(async () => {
    await svc?.stop();
    await proxy?.close();
    await net?.stop();
    await database?.drop();
  });

  const pay = (user: UserClient, stroops: number) =>
    user.rawCall('POST', '/v1/tx/run', { body: xlmPayment(destination, stroops) });
  const records = async () =>
    Number(
      (await svc.deps.db('transactions').where({ app_id: appId }).whereNot({ origin: 'activation' }).count())[0]!.count,
    );

  test('during the outage: 503 STELLAR_UNAVAILABLE and no record; a payment sent before it lands; all resumes after', async () => {
    // Sent just before the cut: recorded and accepted by the RPC, its ledger not closed yet.
    const sent = await pay(users[0]!, 1);
    assert.equal(sent.status, 200, sent.text);
    assert.equal(sent.body.content.status, 'pending');

    await proxy.cut();
    const outageEnds = Date.now() + OUTAGE_MS;
    // The chain goes on without the service seeing it: the payment sent is applied.
    await net.closeLedger();
    const before = await records();
    const refused = await pay(users[1]!, 2);
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.body.code, 'STELLAR_UNAVAILABLE');
    assert.equal(await records(), before, 'nothing recorded for a payment the service could not build');
    const ready = await fetch(`${svc.url}/ready`);
    const readiness = (await ready.json()) as { content?: { checks?: Record<string, { status?: string }> } };
    assert.equal(ready.status, 503, JSON.stringify(readiness));
    const sentRow = await svc.deps.db('transactions').where({ id: sent.body.content.txId }).first('stage');
    assert.equal(sentRow.stage, 'submitted', 'the payment sent waits for the RPC to be confirmed');
    await new Promise((r) => setTimeout(r, Math.max(0, outageEnds - Date.now())));

    await proxy.restore();
    const stop = closeLedgersEvery({ localnet: net });
    try {
      await eventually(
        'the payment sent before the outage is confirmed from the chain',
        async () =>
          (await svc.deps.db('transactions').where({ id: sent.body.content.txId }).first('status')).status ===
          'SUCCESS',
        30_000,
      );
      for (const [i, u] of users.entries()) {
        const again = await pay(u, 10 + i);
        assert.equal(again.status, 200, again.text);
      }
      await untilSettled(svc.deps.db, appId);
    } finally {
      stop();
    }
    const report = await bankCheck(svc.deps.db, chain, appId);
    assert.equal(report.walletsFunded, users.length);
    assert.equal(report.transactionsApplied, 1 + users.length);
  });
});
