// Hostile input on the input paths added with the user's own wallet sign-in and the Dashboard's metrics: the SEP-10
// challenge's `account`, the signed challenge in verifyWalletSignIn's body (not XDR, NUL, invalid UTF-8, huge, deep,
// Object.prototype names, a transaction that is not a challenge), and getAppMetrics' window. Each is a 4xx with the
// envelope and nothing is stored (no user, no session); and the chain being unreachable never turns a wallet read
// into an error the contract does not have.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Keypair, Networks, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { refreshExternalFunding } from '../../src/domain/wallets/externalFunding';
import type { WalletRecord } from '../../src/domain/wallets/store';
import { StellarUnavailableError } from '../../src/infra/stellar/errors';
import { rawCall } from '../support/http';
import { createDpopKey } from '../support/dpop';
import { appWithWallet } from '../support/funding';
import { sendWithProof, signInOperator, type OperatorClient } from '../support/operators';
import { startTestService, type TestService } from '../support/service';
import { setWalletSignIn } from '../support/users';

let svc: TestService;
let publishableKey: string;
let appId: string;
let operator: OperatorClient;

before(async () => {
  svc = await startTestService();
  const seeded = await appWithWallet(svc, { funded: false });
  publishableKey = seeded.creds.publishableKey;
  await setWalletSignIn(svc, seeded.app.id);
  operator = await signInOperator(svc);
  const created = await operator.call('createApp', 'POST', '/api/v1/apps', {
    body: { name: 'Hostile metrics', network: 'testnet' },
  });
  appId = created.body.content.appId;
});
after(async () => {
  await svc?.stop();
});

const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

const counts = async () => ({
  users: Number((await svc.deps.db('users').count('* as n').first())?.n),
  sessions: Number((await svc.deps.db('sessions').where({ audience: 'user' }).count('* as n').first())?.n),
});

describe('wallet sign-in: hostile challenges and accounts', () => {
  test('createWalletSignInChallenge: NUL, prototype names, an overlong or repeated account are 400', async () => {
    const good = Keypair.random().publicKey();
    for (const account of ['%00', `${good}%00`, ...PROTOTYPE_NAMES, 'G'.repeat(5000), `${good}&account=${good}`]) {
      const res = await rawCall(svc.url, 'GET', `/v1/auth/wallet/challenge?account=${account}`, {
        headers: { 'x-service-api-key': publishableKey },
      });
      assert.ok(res.status >= 400 && res.status < 500, `${account.slice(0, 40)}: ${res.status} ${res.text}`);
      assert.equal(JSON.parse(res.text).success, false);
    }
  });

  test('verifyWalletSignIn: bodies that are no signed challenge are 4xx, and no user or session is made', async () => {
    const before = await counts();
    // A real transaction of the account, but not a challenge of this service.
    const account = Keypair.random();
    const notAChallenge = new TransactionBuilder(new Account(account.publicKey(), '1'), {
      fee: '100',
      networkPassphrase: Networks.TESTNET,
    })
      .addOperation(Operation.manageData({ name: 'localhost auth', value: 'x'.repeat(64) }))
      .setTimeout(300)
      .build();
    notAChallenge.sign(account);
    const bodies: unknown[] = [
      { transaction: 'AAAA' },
      { transaction: 'not base64 at all' },
      { transaction: '\u0000' },
      { transaction: '\ud800' },
      { transaction: 'A'.repeat(30_000) },
      { transaction: notAChallenge.toXDR() },
      { transaction: {} },
      {},
      ...PROTOTYPE_NAMES.map((name) => JSON.parse(`{"transaction":"AAAA","${name}":"x"}`) as unknown),
    ];
    for (const body of bodies) {
      const res = await sendWithProof(svc.url, await createDpopKey(), {}, 'POST', '/v1/auth/wallet/verify', {
        headers: { 'x-service-api-key': publishableKey },
        body,
      });
      const label = JSON.stringify(body).slice(0, 60);
      assert.ok(res.status >= 400 && res.status < 500, `${label}: ${res.status} ${res.text}`);
      assert.equal(res.body.success, false, label);
    }
    // Bodies as bytes: invalid UTF-8 in the value, and a transaction nested 5000 arrays deep
    const rawBodies: [string, string | Uint8Array<ArrayBuffer>][] = [
      ['invalid UTF-8', new Uint8Array([...Buffer.from('{"transaction":"'), 0xff, 0xfe, ...Buffer.from('"}')])],
      ['5000 levels deep', `{"transaction":${'['.repeat(5000)}${']'.repeat(5000)}}`],
    ];
    for (const [label, rawBody] of rawBodies) {
      const raw = await sendWithProof(svc.url, await createDpopKey(), {}, 'POST', '/v1/auth/wallet/verify', {
        headers: { 'x-service-api-key': publishableKey, 'content-type': 'application/json' },
        rawBody,
      });
      assert.ok(raw.status >= 400 && raw.status < 500, `${label}: ${raw.status} ${raw.text}`);
    }
    assert.deepEqual(await counts(), before);
  });

  test('an unreachable chain: a wallet read keeps the stored state, a submission fails as the dependency it is', async () => {
    const down = () => Promise.reject(new StellarUnavailableError('Stellar RPC getLedgerEntries failed: refused'));
    const gateway = { loadAccount: down };
    const deps = {
      db: svc.deps.db,
      clock: svc.deps.clock,
      stellar: { ...svc.deps.stellar!, gateways: { testnet: gateway } },
    } as unknown as Parameters<typeof refreshExternalFunding>[0];
    const wallet = {
      id: 'wal_external',
      custody: 'external',
      fundingState: 'unfunded',
      network: 'testnet',
      publicKey: Keypair.random().publicKey(),
    } as WalletRecord;
    assert.equal(await refreshExternalFunding(deps, wallet, { keepWhenUnreachable: true }), wallet);
    await assert.rejects(refreshExternalFunding(deps, wallet), StellarUnavailableError);
  });
});

describe('getAppMetrics: hostile windows', () => {
  test('NUL, prototype names, invalid dates, huge and repeated parameters are 400', async () => {
    const values = ['%00', '2026-11-01T00:00:00.000Z%00', ...PROTOTYPE_NAMES, '2026-13-45T99:99:99Z', '9'.repeat(5000)];
    const queries = [
      ...values.map((v) => `from=${v}`),
      ...values.map((v) => `to=${v}`),
      'from=2026-11-01T00:00:00.000Z&from=2026-11-02T00:00:00.000Z',
      'from=2026-11-02T00:00:00.000Z&to=2026-11-01T00:00:00.000Z',
      'from=1000-01-01T00:00:00.000Z&to=9999-12-31T00:00:00.000Z',
    ];
    for (const q of queries) {
      const res = await operator.call('getAppMetrics', 'GET', `/api/v1/apps/${appId}/metrics?${q}`);
      assert.equal(res.status, 400, `${q.slice(0, 60)}: ${res.status} ${res.text}`);
      assert.equal(res.body.success, false);
    }
  });
});
