// GET /v1/tx/history and GET /v1/tx/{hash} over HTTP against the real service (PostgreSQL, the in-process localnet),
// every answer checked against the contract. History rows are written through the store as the service writes them;
// the chain fallback of getTransaction is exercised with transactions built and signed here.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Account, Keypair, Operation, TransactionBuilder, type xdr } from '@stellar/stellar-sdk';
import { insertTransaction } from '../../src/domain/transactions/store';
import type { App } from '../../src/domain/apps/store';
import { startTestService, type TestService } from '../support/service';
import { signInUser, type UserClient } from '../support/users';
import { appWithWallet, gatewayOf } from '../support/funding';
import { newTx } from '../support/history';

let svc: TestService;
let app: App;
let publishableKey: string;

before(async () => {
  svc = await startTestService({}, { closeLedgersEveryMs: 100 });
  ({
    app,
    creds: { publishableKey },
  } = await appWithWallet(svc, { settings: { fundingMode: 'deferred' }, funded: false }));
  // Park any ledger follower of the service far ahead: these tests decide what the service has recorded.
  await svc.deps
    .db('ledger_followers')
    .insert({ network: 'testnet', next_ledger: 2 ** 31 - 1, updated_at: new Date() })
    .onConflict('network')
    .merge();
});
after(async () => {
  await svc?.stop();
});

async function userWithHistory(
  n: number,
): Promise<{ user: UserClient; walletId: string; publicKey: string; ids: string[] }> {
  const user = await signInUser(svc, { publishableKey });
  const { walletId, publicKey } = user.signIn.wallet;
  const ids: string[] = [];
  await svc.deps.db.transaction(async (trx) => {
    for (let i = 0; i < n; i++) {
      const tx = await insertTransaction(
        trx,
        newTx(app.id, walletId, new Date(Date.parse('2026-11-20T10:00:00Z') + i * 1000)),
        [{ walletId, direction: 'sent', summary: `Sent ${i + 1} XLM to GABC...WXYZ` }],
      );
      ids.unshift(tx!.id); // newest first
    }
  });
  return { user, walletId, publicKey, ids };
}

describe('GET /v1/tx/history', () => {
  test('200: the default page (20), newest first, with the total and a cursor; the records as the contract shapes them', async () => {
    const { user, ids } = await userWithHistory(25);
    const res = await user.call('getTxHistory', 'GET', '/v1/tx/history');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'TX_HISTORY_FETCHED');
    const page = res.body.content;
    assert.deepEqual([page.total, page.limit, page.offset, page.records.length], [25, 20, 0, 20]);
    assert.deepEqual(
      page.records.map((r: { id: string }) => r.id),
      ids.slice(0, 20),
    );
    assert.deepEqual(page.records[0], {
      id: ids[0],
      hash: page.records[0].hash,
      network: 'testnet',
      status: 'SUCCESS',
      operation: 'payment',
      feeXlm: '0.00002',
      resultCode: 'tx_success',
      summary: 'Sent 25 XLM to GABC...WXYZ',
      createdAt: '2026-11-20T10:00:24.000Z',
    });
    assert.equal(typeof page.nextCursor, 'string');

    const next = await user.call(
      'getTxHistory',
      'GET',
      `/v1/tx/history?limit=20&cursor=${encodeURIComponent(page.nextCursor)}`,
    );
    assert.deepEqual(
      next.body.content.records.map((r: { id: string }) => r.id),
      ids.slice(20),
    );
    assert.deepEqual([next.body.content.offset, next.body.content.nextCursor], [20, null]);

    const byOffset = await user.call('getTxHistory', 'GET', '/v1/tx/history?limit=10&offset=10&network=testnet');
    assert.deepEqual(
      byOffset.body.content.records.map((r: { id: string }) => r.id),
      ids.slice(10, 20),
    );
    assert.deepEqual(
      [byOffset.body.content.total, byOffset.body.content.limit, byOffset.body.content.offset],
      [25, 10, 10],
    );
  });

  test('400: limit above 100 or below 1, a negative offset, and a cursor of another user refused as query.cursor', async () => {
    const { user } = await userWithHistory(2);
    for (const query of ['limit=101', 'limit=0', 'offset=-1']) {
      const res = await user.call('getTxHistory', 'GET', `/v1/tx/history?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
    }
    const other = await userWithHistory(2);
    const theirs = (await other.user.call('getTxHistory', 'GET', '/v1/tx/history?limit=1')).body.content.nextCursor;
    const res = await user.call('getTxHistory', 'GET', `/v1/tx/history?cursor=${encodeURIComponent(theirs)}`);
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.details, {
      fieldErrors: { 'query.cursor': ['is not a cursor of this history: pass back a nextCursor as given'] },
    });
  });

  test("404 WALLET_NOT_FOUND: another network than the key's, where the user has no wallet", async () => {
    const { user } = await userWithHistory(1);
    const res = await user.call('getTxHistory', 'GET', '/v1/tx/history?network=mainnet');
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'WALLET_NOT_FOUND');
  });

  test('a user without transactions: an empty page', async () => {
    const { user } = await userWithHistory(0);
    const res = await user.call('getTxHistory', 'GET', '/v1/tx/history');
    assert.deepEqual(res.body.content, { records: [], total: 0, limit: 20, offset: 0, nextCursor: null });
  });
});

/** A friendbot-funded account of the test, and a way to send its transactions. */
async function outsider(): Promise<{ keypair: Keypair; send(ops: xdr.Operation[]): Promise<string> }> {
  const keypair = Keypair.random();
  const gw = gatewayOf(svc);
  await gw.fundWithFriendbot(keypair.publicKey());
  return {
    keypair,
    async send(ops) {
      const account = (await gw.loadAccount(keypair.publicKey()))!;
      const builder = new TransactionBuilder(new Account(keypair.publicKey(), account.sequence), {
        fee: '100',
        networkPassphrase: gw.networkPassphrase,
      }).setTimeout(60);
      for (const op of ops) builder.addOperation(op);
      const tx = builder.build();
      tx.sign(keypair);
      return (await gw.submitAndConfirm(tx)).hash;
    },
  };
}

describe('GET /v1/tx/{hash}', () => {
  test('200 from the records: by the hash and by the inner hash, with the ledger and the envelope once known', async () => {
    const user = await signInUser(svc, { publishableKey });
    const { walletId } = user.signIn.wallet;
    const inner = randomBytes(32).toString('hex');
    const tx = await svc.deps.db.transaction((trx) =>
      insertTransaction(
        trx,
        newTx(app.id, walletId, new Date('2026-11-21T10:15:30Z'), {
          innerHash: inner,
          ledger: 1234,
          envelopeXdr: 'AAAAAgAAAAA=',
        }),
        [{ walletId, direction: 'sent', summary: 'Sent 10 USDC to GA2U...W27N' }],
      ),
    );
    for (const hash of [tx!.hash, inner]) {
      const res = await user.call('getTransaction', 'GET', `/v1/tx/${hash}`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.code, 'TX_FETCHED');
      assert.deepEqual(res.body.content, {
        id: tx!.id,
        hash: tx!.hash,
        network: 'testnet',
        status: 'SUCCESS',
        operation: 'payment',
        feeXlm: '0.00002',
        resultCode: 'tx_success',
        summary: 'Sent 10 USDC to GA2U...W27N',
        createdAt: '2026-11-21T10:15:30.000Z',
        ledger: 1234,
        envelopeXdr: 'AAAAAgAAAAA=',
      });
    }
    // Another user's transaction is not found for this one.
    const stranger = await signInUser(svc, { publishableKey });
    const res = await stranger.call('getTransaction', 'GET', `/v1/tx/${tx!.hash}`);
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'TX_NOT_FOUND');
  });

  test("200 from Stellar RPC: a payment into the wallet made outside the service and not recorded yet, in the wallet's own words", async () => {
    const user = await signInUser(svc, { publishableKey });
    const { publicKey } = user.signIn.wallet;
    const from = await outsider();
    const hash = await from.send([Operation.createAccount({ destination: publicKey, startingBalance: '3' })]);
    assert.equal(
      await svc.deps.db('transactions').where({ hash }).first(),
      undefined,
      'the service has not recorded it',
    );
    const res = await user.call('getTransaction', 'GET', `/v1/tx/${hash}`);
    assert.equal(res.status, 200, res.text);
    const c = res.body.content;
    assert.deepEqual(
      {
        id: c.id,
        hash: c.hash,
        status: c.status,
        operation: c.operation,
        feeXlm: c.feeXlm,
        resultCode: c.resultCode,
        summary: c.summary,
      },
      {
        id: hash,
        hash,
        status: 'SUCCESS',
        operation: 'createAccount',
        feeXlm: '0.00001',
        resultCode: 'tx_success',
        summary: `Received 3 XLM from ${from.keypair.publicKey().slice(0, 4)}...${from.keypair.publicKey().slice(-4)}`,
      },
    );
    assert.ok(c.ledger >= 1);
    assert.equal(
      Buffer.from(TransactionBuilder.fromXDR(c.envelopeXdr, gatewayOf(svc).networkPassphrase).hash()).toString('hex'),
      hash,
    );
  });

  test('404 TX_NOT_FOUND: a chain transaction that does not involve the wallet, and a hash nobody knows; 400 for a malformed hash', async () => {
    const user = await signInUser(svc, { publishableKey });
    const from = await outsider();
    const elsewhere = await from.send([
      Operation.createAccount({ destination: Keypair.random().publicKey(), startingBalance: '2' }),
    ]);
    for (const hash of [elsewhere, randomBytes(32).toString('hex')]) {
      const res = await user.call('getTransaction', 'GET', `/v1/tx/${hash}`);
      assert.equal(res.status, 404, hash);
      assert.equal(res.body.code, 'TX_NOT_FOUND');
    }
    const bad = await user.call('getTransaction', 'GET', `/v1/tx/${'A'.repeat(64)}`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'VALIDATION_ERROR');
  });
});
