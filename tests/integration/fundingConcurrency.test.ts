// 100 concurrent fund calls for one wallet, split across two service instances on one PostgreSQL database and one
// chain (a localnet both reach over RPC): exactly one activation happens, on the ledger as in the database.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalnet, type Localnet } from '../../src/localnet/index';
import { freshDatabase, type TestDatabase } from '../support/database';
import { call } from '../support/http';
import { startTestService, type TestService } from '../support/service';
import { appWithWallet, closeLedgersEvery, gatewayOf, userWallet } from '../support/funding';

describe('fund: 100 concurrent calls across two instances', () => {
  let net: Localnet;
  let database: TestDatabase;
  let dataDir: string;
  let a: TestService;
  let b: TestService;
  let stopClosing: () => void;

  before(async () => {
    net = await startLocalnet({ ledgerCloseMs: 'manual' });
    stopClosing = closeLedgersEvery({ localnet: net });
    database = await freshDatabase();
    // One deployment: the same database, chain, service secret and local master key (the data directory).
    dataDir = mkdtempSync(join(tmpdir(), 'onboard-funding-shared-'));
    const env = { STELLAR_TESTNET_RPC_URL: net.rpcUrl, ONBOARD_DATA_DIR: dataDir };
    a = await startTestService(env, { database });
    b = await startTestService(env, { database });
  });
  after(async () => {
    stopClosing?.();
    await a?.stop();
    await b?.stop();
    await net?.stop();
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('one 200, 99 409 WALLET_ALREADY_FUNDED, one sponsorship on the ledger, one activation recorded', async () => {
    const { creds, appWallet, app } = await appWithWallet(a);
    const wallet = await userWallet(a, app);
    const sponsorBefore = (await gatewayOf(a).loadAccount(appWallet.publicKey))!;

    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        call(i % 2 ? b.url : a.url, 'fundWallet', 'POST', '/v1/wallets/fund', {
          headers: { 'x-service-api-key': creds.secretKey },
          body: { publicKey: wallet.publicKey },
        }),
      ),
    );
    const statuses = answers.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 200).length, 1, `statuses: ${statuses.join(',')}`);
    assert.equal(answers.filter((r) => r.status === 409 && r.body.code === 'WALLET_ALREADY_FUNDED').length, 99);

    const sponsorAfter = (await gatewayOf(a).loadAccount(appWallet.publicKey))!;
    assert.equal(sponsorAfter.numSponsoring - sponsorBefore.numSponsoring, 2, 'exactly one account sponsored');
    const account = (await gatewayOf(b).loadAccount(wallet.publicKey))!;
    assert.equal(account.sponsor, appWallet.publicKey);

    const activation = await a.deps.db('wallet_activations').where({ wallet_id: wallet.id }).first();
    assert.equal(activation.attempts, 1, 'one envelope built and sent');
    const audit = await a.deps.db('audit_log').where({ wallet_id: wallet.id }).select('action');
    assert.deepEqual(audit.map((r) => r.action).sort(), ['key.decrypt', 'wallet.funded']);
  });
});
