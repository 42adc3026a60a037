// Friendbot: the SDK's fundAddress / requestAirdrop against it, and its answers to bad or funded addresses.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair, Operation } from '@stellar/stellar-sdk';
import { balanceOf, build, newAccounts, submitOk, txHash, type TestNet, startTestLocalnet } from '../support/localnet';

describe('localnet: friendbot', () => {
  let net: TestNet;
  before(async () => {
    net = await startTestLocalnet();
  });
  after(() => net?.stop());

  test('fundAddress (friendbotUrl from getNetwork) creates the account with 10,000 XLM, answering once it is in a ledger', async () => {
    const kp = Keypair.random();
    const tx = await net.server.fundAddress(kp.publicKey());
    assert.equal(tx.status, 'SUCCESS');
    assert.equal(await balanceOf(net, kp.publicKey()), 100_000_000_000n);
    // The funding transaction comes from a friendbot channel account, its operation from the root account.
    assert.ok(tx.status === 'SUCCESS');
    const env = tx.envelopeXdr;
    assert.ok(env.type === 'envelopeTypeTx');
    assert.notEqual(
      Buffer.from(env.v1.tx.sourceAccount.toXdr()).toString('hex'),
      Buffer.from(net.root.xdrMuxedAccount().toXdr()).toString('hex'),
    );
  });

  test('requestAirdrop returns the created account with its sequence number', async () => {
    const kp = Keypair.random();
    const account = await net.server.requestAirdrop(kp.publicKey());
    assert.equal(account.accountId(), kp.publicKey());
    assert.equal(account.sequenceNumber(), (await net.server.getAccount(kp.publicKey())).sequenceNumber());
  });

  test('an account at 10,000 XLM: 400 "account already funded to starting balance"; below: topped up with a payment', async () => {
    const kp = Keypair.random();
    await net.server.fundAddress(kp.publicKey());
    await assert.rejects(net.server.fundAddress(kp.publicKey()), /account already funded to starting balance/);
    const res = await fetch(`${net.localnet.friendbotUrl}?addr=${kp.publicKey()}`);
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), {
      type: 'https://stellar.org/horizon-errors/bad_request',
      title: 'Bad Request',
      status: 400,
      detail: 'account already funded to starting balance',
    });
    const [small] = await newAccounts(net, 1, '5');
    const topped = await net.server.fundAddress(small.publicKey());
    assert.equal(topped.status, 'SUCCESS');
    assert.equal(await balanceOf(net, small.publicKey()), 100_050_000_000n);
  });

  test('bad addresses are 400 with invalid_field addr; a form-encoded POST works; concurrent requests all succeed', async () => {
    for (const addr of ['', 'GNOTANADDRESS', 'CA3D5KRYM6CB7OWQ6TWYRR3Z4T7GNZLKERYNZGGA5SOAOPIFY6YQGAXE']) {
      const res = await fetch(`${net.localnet.friendbotUrl}?addr=${addr}`);
      assert.equal(res.status, 400, addr);
      const body = (await res.json()) as { extras: { invalid_field: string } };
      assert.equal(body.extras.invalid_field, 'addr');
    }
    const kp = Keypair.random();
    const form = await fetch(net.localnet.friendbotUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `addr=${kp.publicKey()}`,
    });
    assert.equal(form.status, 200);
    const body = (await form.json()) as { successful: boolean; hash: string };
    assert.equal(body.successful, true);
    assert.equal((await net.server.getTransaction(body.hash)).status, 'SUCCESS');
    const many = Array.from({ length: 12 }, () => Keypair.random());
    const answers = await Promise.all(many.map((k) => net.server.fundAddress(k.publicKey())));
    assert.ok(answers.every((a) => a.status === 'SUCCESS'));
  });

  test('a first request while someone else has a root-account transaction queued still succeeds (after that ledger)', async () => {
    const fresh = await startTestLocalnet();
    try {
      const rootTx = await build(fresh, fresh.root, [Operation.bumpSequence({ bumpTo: '0' })]);
      assert.equal((await fresh.server.sendTransaction(rootTx)).status, 'PENDING');
      // Friendbot's channel accounts are created from root on first use: TRY_AGAIN_LATER, one close, retry.
      assert.equal((await fresh.server.fundAddress(Keypair.random().publicKey())).status, 'SUCCESS');
      assert.equal((await fresh.server.getTransaction(txHash(rootTx))).status, 'SUCCESS');
      await submitOk(fresh, await build(fresh, fresh.root, [Operation.bumpSequence({ bumpTo: '0' })]));
    } finally {
      await fresh.stop();
    }
  });
});
