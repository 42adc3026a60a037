// verifySep10Challenge (POST /api/v1/auth/sep10/verify): sign in with a signed SEP-10 challenge.
// Shared set-up: sep10.setup.ts.
import { describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair, Networks, TransactionBuilder, WebAuth, type Transaction } from '@stellar/stellar-sdk';
import { sep10SigningKeypair } from '../../../src/domain/sep10/challenges';
import { pruneUsedSep10Challenges } from '../../../src/domain/sep10/store';
import { sendWithProof } from '../../support/operators';
import { responseViolations } from '../../support/spec';
import {
  DOMAIN,
  assertWalletAuthFailed,
  getChallenge,
  multisigAccount,
  signIn,
  svc,
  useService,
  verify,
  walletSigns,
} from './sep10.setup';
import { freePort } from '../../../src/infra/freePort';
import { startTestService } from '../../support/service';

describe('verifySep10Challenge', () => {
  useService();

  test('a new (off-chain) account signs in with its master key; the session works on /me, which shows the account', async () => {
    const wallet = Keypair.random();
    const res = await signIn(svc, wallet.publicKey(), [wallet]);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'OPERATOR_SEP10_SIGNED_IN');
    const { tokens, operator } = res.body.content;
    assert.match(operator.operatorId, /^op_/);
    assert.equal(operator.stellarAccount, wallet.publicKey());
    assert.equal(operator.email, undefined);
    const session = await svc.deps.db('sessions').where({ id: tokens.sessionId }).first();
    assert.equal(session.auth_method, 'sep10');
    assert.equal(session.jkt, res.key.jkt, 'the tokens are bound to the key of the verify request proof');
    const me = await sendWithProof(svc.url, res.key, res.state, 'GET', '/api/v1/me', {
      accessToken: tokens.accessToken,
    });
    assert.deepEqual(responseViolations('getCurrentOperator', me), []);
    assert.equal(me.status, 200);
    assert.equal(me.body.content.operator.operatorId, operator.operatorId);
    assert.equal(me.body.content.operator.stellarAccount, wallet.publicKey());
  });

  test('a second sign-in with the same account reaches the same operator', async () => {
    const wallet = Keypair.random();
    const a = await signIn(svc, wallet.publicKey(), [wallet]);
    const b = await signIn(svc, wallet.publicKey(), [wallet]);
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
    assert.equal(a.body.content.operator.operatorId, b.body.content.operator.operatorId);
    assert.notEqual(a.body.content.tokens.sessionId, b.body.content.tokens.sessionId);
  });

  test('an off-chain account: a signature by any key but its master key fails', async () => {
    const wallet = Keypair.random();
    const other = Keypair.random();
    assertWalletAuthFailed(await signIn(svc, wallet.publicKey(), [other]));
    assertWalletAuthFailed(await signIn(svc, wallet.publicKey(), [wallet, other]), /unrecognized signatures/);
  });

  test('an on-chain account with a medium threshold of 2: one signer alone fails, signers reaching 2 sign in', async () => {
    const cosigner = Keypair.random();
    const stranger = Keypair.random();
    const account = await multisigAccount({
      masterWeight: 1,
      medThreshold: 2,
      signers: [{ key: cosigner, weight: 1 }],
    });
    assertWalletAuthFailed(await signIn(svc, account.publicKey(), [account]), /threshold/);
    assertWalletAuthFailed(await signIn(svc, account.publicKey(), [cosigner]), /threshold/);
    assertWalletAuthFailed(
      await signIn(svc, account.publicKey(), [account, cosigner, stranger]),
      /unrecognized signatures/,
    );
    const ok = await signIn(svc, account.publicKey(), [account, cosigner]);
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.content.operator.stellarAccount, account.publicKey());
  });

  test('an on-chain account whose master key is disabled (weight 0): the master key fails, its signer signs in', async () => {
    const signer = Keypair.random();
    const account = await multisigAccount({ masterWeight: 0, medThreshold: 1, signers: [{ key: signer, weight: 1 }] });
    assertWalletAuthFailed(await signIn(svc, account.publicKey(), [account]));
    assert.equal((await signIn(svc, account.publicKey(), [signer])).status, 200);
  });

  test('an expired challenge fails, even within the 5 minutes of skew the SDK would allow', async () => {
    const wallet = Keypair.random();
    // the service's own challenge, issued 1000 s ago: it expired 100 s ago
    mock.timers.enable({ apis: ['Date'], now: Date.now() - 1000_000 });
    let old: string;
    try {
      old = WebAuth.buildChallengeTx(
        sep10SigningKeypair(svc.deps.secrets),
        wallet.publicKey(),
        DOMAIN,
        900,
        Networks.TESTNET,
        DOMAIN,
      );
    } finally {
      mock.timers.reset();
    }
    const signed = TransactionBuilder.fromXDR(old, Networks.TESTNET);
    signed.sign(wallet);
    assertWalletAuthFailed(await verify(svc, signed.toXDR()), /expired/);
  });

  test('a tampered challenge (time bounds extended by an hour) fails: the service signature no longer matches', async () => {
    const wallet = Keypair.random();
    const { body } = await getChallenge(svc, wallet.publicKey());
    const envelope = Buffer.from(body.content.transaction, 'base64');
    const tx = TransactionBuilder.fromXDR(body.content.transaction, Networks.TESTNET) as Transaction;
    const maxTime = Buffer.alloc(8);
    maxTime.writeBigUInt64BE(BigInt(tx.timeBounds!.maxTime));
    const at = envelope.indexOf(maxTime);
    assert.ok(at > 0);
    envelope.writeBigUInt64BE(BigInt(tx.timeBounds!.maxTime) + 3600n, at);
    const tampered = TransactionBuilder.fromXDR(envelope.toString('base64'), Networks.TESTNET);
    tampered.sign(wallet);
    assertWalletAuthFailed(await verify(svc, tampered.toXDR()), /not signed by server/);
  });

  test('a challenge not signed by the service fails: issued by another key, or stripped of the service signature', async () => {
    const wallet = Keypair.random();
    const forged = TransactionBuilder.fromXDR(
      WebAuth.buildChallengeTx(Keypair.random(), wallet.publicKey(), DOMAIN, 900, Networks.TESTNET, DOMAIN),
      Networks.TESTNET,
    );
    forged.sign(wallet);
    assertWalletAuthFailed(await verify(svc, forged.toXDR()), /source account is not equal to the server/);
    const { body } = await getChallenge(svc, wallet.publicKey());
    const stripped = TransactionBuilder.fromXDR(body.content.transaction, Networks.TESTNET);
    stripped.signatures.splice(0);
    stripped.sign(wallet);
    assertWalletAuthFailed(await verify(svc, stripped.toXDR()), /not signed by server/);
  });

  test('a challenge signed for another network fails', async () => {
    const wallet = Keypair.random();
    const { body } = await getChallenge(svc, wallet.publicKey());
    assertWalletAuthFailed(
      await verify(svc, walletSigns(svc, body.content.transaction, [wallet], { signFor: Networks.PUBLIC })),
      /None of the given signers/,
    );
  });

  test('a challenge without the client signature fails', async () => {
    const { body } = await getChallenge(svc, Keypair.random().publicKey());
    assertWalletAuthFailed(await verify(svc, body.content.transaction), /None of the given signers/);
  });

  test('a transaction that is not a challenge (not XDR) fails with WALLET_AUTH_FAILED, not a server error', async () => {
    assertWalletAuthFailed(await verify(svc, 'AAAAAgAAAAA='));
  });

  test('a verified challenge works once: using it again fails, and a failed attempt does not use it up', async () => {
    const wallet = Keypair.random();
    const { body } = await getChallenge(svc, wallet.publicKey());
    const unsigned = body.content.transaction;
    assertWalletAuthFailed(await verify(svc, unsigned));
    const signed = walletSigns(svc, unsigned, [wallet]);
    assert.equal((await verify(svc, signed)).status, 200);
    assertWalletAuthFailed(await verify(svc, signed), /already used/);
    // the same challenge with its signatures in another order is still the same challenge
    const reordered = TransactionBuilder.fromXDR(signed, Networks.TESTNET);
    reordered.signatures.reverse();
    assertWalletAuthFailed(await verify(svc, reordered.toXDR()), /already used/);
  });

  test('20 concurrent verifications of one challenge: exactly one signs in', async () => {
    const wallet = Keypair.random();
    const { body } = await getChallenge(svc, wallet.publicKey());
    const signed = walletSigns(svc, body.content.transaction, [wallet]);
    const answers = await Promise.all(Array.from({ length: 20 }, () => verify(svc, signed)));
    assert.equal(answers.filter((a) => a.status === 200).length, 1);
    for (const a of answers.filter((x) => x.status !== 200)) assertWalletAuthFailed(a, /already used/);
    const operator = await svc.deps.db('operators').where({ stellar_account: wallet.publicKey() }).first();
    const sessions = await svc.deps.db('sessions').where({ subject_id: operator.id });
    assert.equal(sessions.length, 1, 'one session, from the one success');
  });

  test('two different challenges of a new account verified at once: both sign in, as one operator', async () => {
    const wallet = Keypair.random();
    const [a, b] = await Promise.all([
      signIn(svc, wallet.publicKey(), [wallet]),
      signIn(svc, wallet.publicKey(), [wallet]),
    ]);
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
    assert.equal(a.body.content.operator.operatorId, b.body.content.operator.operatorId);
    assert.equal((await svc.deps.db('operators').where({ stellar_account: wallet.publicKey() })).length, 1);
  });

  test('used challenges are pruned an hour after they expire, not before', async () => {
    const now = new Date();
    const db = svc.deps.db;
    await db('sep10_used_challenges').insert([
      { challenge_hash: 'prune-test-old', expires_at: new Date(now.getTime() - 3601_000) },
      { challenge_hash: 'prune-test-recent', expires_at: new Date(now.getTime() - 60_000) },
    ]);
    assert.ok((await pruneUsedSep10Challenges(db, now)) >= 1);
    const left = await db('sep10_used_challenges')
      .whereIn('challenge_hash', ['prune-test-old', 'prune-test-recent'])
      .pluck('challenge_hash');
    assert.deepEqual(left, ['prune-test-recent']);
  });
});

describe('verifySep10Challenge when the network cannot be read', () => {
  test('an unreachable RPC answers 503 STELLAR_UNAVAILABLE with Retry-After', async () => {
    const offline = await startTestService({ STELLAR_TESTNET_RPC_URL: `http://127.0.0.1:${await freePort()}/rpc` });
    try {
      const wallet = Keypair.random();
      const { body } = await getChallenge(offline, wallet.publicKey());
      const res = await verify(
        offline,
        walletSigns(offline, body.content.transaction, [wallet], { domain: 'localhost' }),
      );
      assert.equal(res.status, 503, res.text);
      assert.equal(res.body.code, 'STELLAR_UNAVAILABLE');
      assert.ok(Number(res.headers.get('retry-after')) > 0);
    } finally {
      await offline.stop();
    }
  });

  test('SEP10_NETWORK=mainnet: challenges carry the public passphrase; without a mainnet RPC, verification answers 503', async () => {
    const offline = await startTestService({ SEP10_NETWORK: 'mainnet' });
    try {
      const wallet = Keypair.random();
      const { body } = await getChallenge(offline, wallet.publicKey());
      assert.equal(body.content.networkPassphrase, Networks.PUBLIC);
      const signed = TransactionBuilder.fromXDR(body.content.transaction, Networks.PUBLIC);
      signed.sign(wallet);
      const res = await verify(offline, signed.toXDR());
      assert.equal(res.status, 503, res.text);
      assert.equal(res.body.code, 'STELLAR_UNAVAILABLE');
    } finally {
      await offline.stop();
    }
  });
});
