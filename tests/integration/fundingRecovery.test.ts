// A crash between submission and confirmation: the service runs as a real child process (`src/main.ts`) on a shared
// database and chain, is killed (SIGKILL) while its activation transaction waits in the ledger queue, and a service
// started afterwards reconciles with the chain. Nothing is left half-funded or funded twice: when the envelope was
// applied, the wallet is marked funded without a second transaction; when it expired unapplied, a worker process
// rebuilds it once, and when that worker is killed in turn (SIGKILL) with the rebuilt envelope queued, the service
// started next finds it applied and builds nothing more. The bank check (tests/support/bankCheck.ts) holds after each.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { App } from '../../src/domain/apps/store';
import { findWallet, type WalletRecord } from '../../src/domain/wallets/store';
import type { Db } from '../../src/infra/db/database';
import type { StellarGateway } from '../../src/infra/stellar/gateway';
import type { Localnet } from '../../src/localnet/index';
import { crashDeployment, killChild, type ChildService, type CrashDeployment } from '../support/childService';
import type { TestDatabase } from '../support/database';
import { startTestService, type TestService } from '../support/service';
import { bankCheck } from '../support/bankCheck';
import { appWithWallet, closeLedgersEvery, eventually, userWallet } from '../support/funding';

describe('fund: crash between submission and confirmation', () => {
  let deployment: CrashDeployment;
  let net: Localnet;
  let chain: StellarGateway;
  let database: TestDatabase;
  let db: Db;
  let env: Record<string, string>;
  let secretKey: string;
  let app: App;
  let appWallet: WalletRecord;
  let restarted: TestService | undefined;

  before(async () => {
    // The shortest activation window, so that an envelope is known dead within seconds.
    deployment = await crashDeployment('funding-crash', {
      ACTIVATION_TIMEOUT_SECONDS: '15',
      ACTIVATION_RETRY_SECONDS: '1',
    });
    ({ net, chain, database, db, env } = deployment);
    const seeding = await startTestService(env, { database });
    try {
      ({
        app,
        appWallet,
        creds: { secretKey },
      } = await appWithWallet(seeding));
    } finally {
      await seeding.stop();
    }
  });
  after(async () => {
    await restarted?.stop();
    await deployment?.stop();
  });

  /** `make run`'s entry point as a process of its own on the shared database, chain and data directory. */
  const startChild = (): Promise<ChildService> => deployment.startChild();

  /** A new user wallet, created by a short-lived in-process instance. */
  async function newUserWallet(): Promise<WalletRecord> {
    const svc = await startTestService(env, { database });
    try {
      return await userWallet(svc, app);
    } finally {
      await svc.stop();
    }
  }

  /** Sends the fund call to the child and kills it once the envelope is recorded and waits in the ledger queue. */
  async function fundAndCrash(wallet: WalletRecord): Promise<{ txHash: string; validUntil: Date }> {
    const { child, url } = await startChild();
    const answer = fetch(`${url}/v1/wallets/fund`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-api-key': secretKey },
      body: JSON.stringify({ publicKey: wallet.publicKey }),
    }).catch(() => undefined);
    let recorded: { tx_hash: string | null; valid_until: Date } | undefined;
    await eventually('the envelope is recorded and queued', async () => {
      recorded = await db('wallet_activations').where({ wallet_id: wallet.id }).first('tx_hash', 'valid_until');
      return Boolean(recorded?.tx_hash) && net.engine.pendingCount() > 0;
    });
    await killChild(child);
    assert.equal(await answer, undefined, 'the request died with the process');
    assert.equal((await findWallet(db, wallet.id))!.fundingState, 'activating');
    return { txHash: recorded!.tx_hash!, validUntil: recorded!.valid_until };
  }

  /** Starts a service on the shared database, as after a restart, and waits until it has funded the wallet. */
  async function restartAndAwaitFunded(wallet: WalletRecord): Promise<void> {
    restarted = await startTestService(env, { database });
    const stop = closeLedgersEvery({ localnet: net });
    try {
      await eventually(
        'the restarted service marks the wallet funded',
        async () => (await findWallet(db, wallet.id))!.fundingState === 'funded',
        30_000,
      );
    } finally {
      stop();
      await restarted.stop();
      restarted = undefined;
    }
  }

  test('the envelope was applied while the service was down: on restart the wallet is funded from the chain, no second transaction', async () => {
    const wallet = await newUserWallet();
    const before = (await chain.loadAccount(appWallet.publicKey))!;
    const { txHash } = await fundAndCrash(wallet);
    await net.closeLedger(); // the network applies it; no service is listening
    await restartAndAwaitFunded(wallet);
    const activation = await db('wallet_activations').where({ wallet_id: wallet.id }).first();
    assert.equal(activation.attempts, 1, 'no second envelope');
    assert.equal(activation.tx_hash, txHash);
    assert.ok(activation.ledger > 0);
    const after = (await chain.loadAccount(appWallet.publicKey))!;
    assert.equal(after.numSponsoring - before.numSponsoring, 2, 'one sponsorship');
    // The envelope recorded before the crash (a fee-bump) is the activation in the user's history.
    const tx = await db('transactions').where({ hash: txHash }).first();
    assert.deepEqual(
      [tx?.origin, tx?.status, tx?.fee_source, tx?.ledger],
      ['activation', 'SUCCESS', appWallet.publicKey, activation.ledger],
    );
    assert.equal((await chain.transactionDetails(txHash))?.feeBump, true);
    assert.equal(
      (await db('tx_history').where({ wallet_id: wallet.id, transaction_id: tx.id }).first())?.direction,
      'received',
    );
    await bankCheck(db, chain, app.id);
  });

  test('the envelope expired unapplied: a worker rebuilds it once; killed in turn, the next finds the rebuilt one applied and builds nothing more', async () => {
    const wallet = await newUserWallet();
    const before = (await chain.loadAccount(appWallet.publicKey))!;
    const { txHash, validUntil } = await fundAndCrash(wallet);
    await new Promise((r) => setTimeout(r, validUntil.getTime() - Date.now() + 1500));
    await net.closeLedger(); // the first envelope is past its time bound: it never applies
    const worker = deployment.startWorker();
    await eventually(
      "the worker's rebuilt envelope is recorded and queued",
      async () => {
        const activation = await db('wallet_activations').where({ wallet_id: wallet.id }).first('attempts', 'tx_hash');
        return activation.attempts === 2 && activation.tx_hash !== txHash && net.engine.pendingCount() > 0;
      },
      30_000,
    );
    await killChild(worker);
    await net.closeLedger(); // the network applies it; no service is listening
    await restartAndAwaitFunded(wallet);
    const activation = await db('wallet_activations').where({ wallet_id: wallet.id }).first();
    assert.equal(activation.attempts, 2, 'the dead envelope was rebuilt once, and nothing after it');
    assert.equal(
      (await chain.transactionDetails(activation.tx_hash))?.feeBump,
      true,
      'the rebuilt one is wrapped again',
    );
    assert.equal(
      (await db('transactions').where({ origin: 'activation', wallet_id: wallet.id }).select('hash'))
        .map((t) => t.hash)
        .join(),
      activation.tx_hash,
    );
    const after = (await chain.loadAccount(appWallet.publicKey))!;
    assert.equal(after.numSponsoring - before.numSponsoring, 2, 'one sponsorship');
    assert.equal((await chain.loadAccount(wallet.publicKey))!.sponsor, appWallet.publicKey);
    const report = await bankCheck(db, chain, app.id);
    assert.equal(report.walletsFunded, 2, 'the two wallets of this file, each funded once');
  });
});
