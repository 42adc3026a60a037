// Security finding 2 (issue #23): distinct payments collapsed into one, each answered as if it were its own. 20
// concurrent `POST /v1/tx/run` from one wallet with the same body, each with its own Idempotency-Key, built the same
// transaction (same sequence number): 15 answered 200 with one hash, 5 answered 409 TX_IDEMPOTENCY_CONFLICT, and one
// payment reached the ledger. Now each build takes its own sequence number (src/domain/transactions/sequences.ts):
// 20 requests are 20 transactions, all of which land. The full set (50 runs, distinct bodies, recovery) is in
// tests/integration/txSequences.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair } from '@stellar/stellar-sdk';
import type { SeededCredentials } from '../support/credentials';
import { startTestService, type TestService } from '../support/service';
import { signInUser } from '../support/users';
import { appWithWallet, createAccountWith, eventually, gatewayOf, issuer, payFromIssuer } from '../support/funding';

let svc: TestService;
let creds: SeededCredentials;

before(async () => {
  svc = await startTestService({ LEDGER_FOLLOWER: 'off', TX_CONFIRM_INTERVAL_MS: '100' }, { closeLedgersEveryMs: 200 });
  ({ creds } = await appWithWallet(svc, { settings: { fundingMode: 'immediate' } }));
});
after(async () => {
  await svc?.stop();
});

describe('distinct payments stay distinct', () => {
  test('20 concurrent runs with one body and 20 Idempotency-Keys: 20 transactions, all land, the ledger moves by 20', async () => {
    const user = await signInUser(svc, creds);
    const wallet: string = user.signIn.wallet.publicKey;
    const gw = gatewayOf(svc);
    // XLM for the wallet, from an outside account; a fresh destination whose balance only these payments move.
    const { keypair: from } = await issuer(svc, []);
    await payFromIssuer(svc, from, wallet, 'native', '100');
    const destination = Keypair.random().publicKey();
    await createAccountWith(svc, destination, '10');
    const before = (await gw.loadAccount(destination))!.balanceStroops;

    const body = { operation: { type: 'payment', destination, asset: 'native', amount: '1' } };
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        user.rawCall('POST', '/v1/tx/run', { headers: { 'idempotency-key': `reward-${i}` }, body }),
      ),
    );
    for (const a of answers) assert.equal(a.status, 200, a.text);
    const ids = answers.map((a) => a.body.content.txId as string);
    assert.equal(new Set(ids).size, 20, 'one transaction per request');
    assert.equal(new Set(answers.map((a) => a.body.content.hash)).size, 20, 'twenty hashes');
    await eventually(
      'all 20 land',
      async () => (await svc.deps.db('transactions').whereIn('id', ids).where({ status: 'SUCCESS' })).length === 20,
      60_000,
    );
    assert.equal((await gw.loadAccount(destination))!.balanceStroops - before, 20n * 10_000_000n);
  });
});
