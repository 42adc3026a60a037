// verifyWalletSignIn (POST /v1/auth/wallet/verify): sign in with the user's own Stellar wallet; the wallet is then
// that account, which the service never signs for. Shared set-up: walletSignIn.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair, TransactionBuilder } from '@stellar/stellar-sdk';
import { createAccountWith, eventually, gatewayOf, issuedAssets } from '../../support/funding';
import { sendWithProof } from '../../support/operators';
import { challenge, signChallenge, svc, useService, verify, walletApp, walletSignIn } from './walletSignIn.setup';

describe('verifyWalletSignIn', () => {
  useService();

  test('an account on the ledger: a user, an external wallet that is the account, a session bound to the proof', async () => {
    const { creds, app } = await walletApp();
    const account = Keypair.random();
    await createAccountWith(svc, account.publicKey(), '20');
    const { res, key } = await walletSignIn(creds.publishableKey, account);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'SDK_WALLET_SIGN_IN_VERIFIED');
    const { user, wallet, tokens } = res.body.content;
    assert.equal(user.email, null);
    assert.deepEqual(
      [wallet.publicKey, wallet.custody, wallet.funded, wallet.network],
      [account.publicKey(), 'external', true, 'testnet'],
    );
    const row = await svc.deps.db('wallets').where({ id: wallet.walletId }).first();
    assert.deepEqual(
      [row.app_id, row.custody, row.sealed_secret, row.wrapped_data_key, row.kms_key_id],
      [app.id, 'external', null, null, null],
    );
    const session = await svc.deps.db('sessions').where({ id: tokens.sessionId }).first();
    assert.deepEqual([session.jkt, session.auth_method], [key.jkt, 'stellar']);
    assert.deepEqual(
      await svc.deps.db('user_identities').where({ user_id: user.userId }).select('provider', 'subject'),
      [{ provider: 'stellar', subject: account.publicKey() }],
    );
    // The next sign-in of the account is the same user and the same wallet.
    const again = await walletSignIn(creds.publishableKey, account);
    assert.equal(again.res.status, 200, again.res.text);
    assert.equal(again.res.body.content.user.userId, user.userId);
    assert.equal(again.res.body.content.wallet.walletId, wallet.walletId);
  });

  test('an account not on the ledger signs in with its master key; its wallet is not funded', async () => {
    const { creds } = await walletApp();
    const { res } = await walletSignIn(creds.publishableKey, Keypair.random());
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.content.wallet.funded, false);
    assert.equal(res.body.content.wallet.custody, 'external');
  });

  test('WALLET_AUTH_FAILED: a challenge used twice, signed by a key that is not a signer, or tampered with', async () => {
    const { creds } = await walletApp();
    const account = Keypair.random();
    await createAccountWith(svc, account.publicKey(), '20');
    const c = await challenge(creds.publishableKey, account.publicKey());
    const signed = signChallenge(c.body.content.transaction, c.body.content.networkPassphrase, [account]);
    const [first, second] = await Promise.all([
      verify(creds.publishableKey, signed),
      verify(creds.publishableKey, signed),
    ]);
    assert.deepEqual([first.status, second.status].sort(), [200, 401], 'of two concurrent uses exactly one signs in');
    const refused = first.status === 401 ? first : second;
    assert.equal(refused.body.code, 'WALLET_AUTH_FAILED');
    const c2 = await challenge(creds.publishableKey, account.publicKey());
    const stranger = await verify(
      creds.publishableKey,
      signChallenge(c2.body.content.transaction, c2.body.content.networkPassphrase, [Keypair.random()]),
    );
    assert.equal(stranger.status, 401);
    assert.equal(stranger.body.code, 'WALLET_AUTH_FAILED');
    // A challenge the service did not issue (the user's own, same shape).
    const forged = await verify(
      creds.publishableKey,
      signChallenge(c2.body.content.transaction, c2.body.content.networkPassphrase, [account]).replace(/A/, 'B'),
    );
    assert.ok([400, 401].includes(forged.status), forged.text);
    assert.equal(
      await svc.deps
        .db('users')
        .where({ app_id: creds.app.id })
        .count('* as n')
        .first()
        .then((r) => Number(r?.n)),
      1,
    );
  });

  test('an account already a wallet of another app: 409 WALLET_ACCOUNT_IN_USE; wallet sign-in off: 403', async () => {
    const a = await walletApp();
    const b = await walletApp();
    const account = Keypair.random();
    assert.equal((await walletSignIn(a.creds.publishableKey, account)).res.status, 200);
    const elsewhere = await walletSignIn(b.creds.publishableKey, account);
    assert.equal(elsewhere.res.status, 409, elsewhere.res.text);
    assert.equal(elsewhere.res.body.code, 'WALLET_ACCOUNT_IN_USE');
    assert.equal(
      await svc.deps
        .db('sessions')
        .where({ app_id: b.app.id })
        .count('* as n')
        .first()
        .then((r) => Number(r?.n)),
      0,
    );
    const off = await walletApp({ enabled: false });
    const c = await challenge(a.creds.publishableKey, account.publicKey());
    const disabled = await verify(
      off.creds.publishableKey,
      signChallenge(c.body.content.transaction, c.body.content.networkPassphrase, [account]),
    );
    assert.equal(disabled.status, 403);
    assert.equal(disabled.body.code, 'AUTH_PROVIDER_DISABLED');
  });

  test('the service never signs for the wallet: sign and run 422; a payment built here, signed by the wallet, fee-bumped', async () => {
    const { creds, appWallet } = await walletApp();
    const account = Keypair.random();
    await createAccountWith(svc, account.publicKey(), '20');
    const { res, key, networkPassphrase } = await walletSignIn(creds.publishableKey, account);
    const accessToken = res.body.content.tokens.accessToken as string;
    const as = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
      sendWithProof(svc.url, key, {}, method, path, {
        headers: { 'x-service-api-key': creds.publishableKey, ...headers },
        body,
        accessToken,
      });
    const operation = { type: 'payment', destination: appWallet.publicKey, asset: 'native', amount: '2' };
    const run = await as('POST', '/v1/tx/run', { operation }, { 'idempotency-key': 'ext-run-1' });
    assert.equal(run.status, 422, run.text);
    assert.equal(run.body.code, 'WALLET_ADAPTER_NOT_SUPPORTED');
    const built = await as('POST', '/v1/tx/build', { operation }, { 'idempotency-key': 'ext-build-1' });
    assert.equal(built.status, 201, built.text);
    const sign = await as('POST', '/v1/tx/sign', { txId: built.body.content.txId });
    assert.equal(sign.status, 422);
    assert.equal(sign.body.code, 'WALLET_ADAPTER_NOT_SUPPORTED');
    assert.equal(
      await svc.deps
        .db('audit_log')
        .where({ action: 'key.decrypt', wallet_id: res.body.content.wallet.walletId })
        .count('* as n')
        .first()
        .then((r) => Number(r?.n)),
      0,
      'no key of the wallet was ever asked for',
    );
    // The wallet's part, in the client: sign the built transaction, then submit it for the app's fee-bump.
    const tx = TransactionBuilder.fromXDR(built.body.content.unsignedXdr, networkPassphrase);
    tx.sign(account);
    const submitted = await as(
      'POST',
      '/v1/tx/submit',
      { signedXdr: tx.toXDR() },
      { 'idempotency-key': 'ext-submit-1' },
    );
    assert.equal(submitted.status, 200, submitted.text);
    assert.ok(['success', 'pending'].includes(submitted.body.content.status));
    const gw = gatewayOf(svc);
    const balance = async () => (await gw.loadAccount(account.publicKey()))!.balanceStroops;
    await eventually('the payment is in a ledger', async () => (await balance()) < 200_000_000n);
    assert.equal(await balance(), 180_000_000n, 'the user paid 2 XLM and no fee: the fee-bump paid it');
    // Funding by the Server API is refused too: the app cannot provision an account it holds no key for.
    const fund = await sendWithProof(svc.url, key, {}, 'POST', '/v1/wallets/fund', {
      headers: { 'x-service-api-key': creds.secretKey },
      body: { publicKey: account.publicKey() },
    });
    assert.equal(fund.status, 422, fund.text);
    assert.equal(fund.body.code, 'WALLET_ADAPTER_NOT_SUPPORTED');
  });

  test("a sponsored trustline signed by the user's own wallet: the app's funding wallet co-signs at submit and pays the reserve", async () => {
    const [asset] = await issuedAssets(svc, ['EXT']);
    const { creds, appWallet } = await walletApp({ assets: [asset!] });
    const account = Keypair.random();
    await createAccountWith(svc, account.publicKey(), '5');
    const { res, key, networkPassphrase } = await walletSignIn(creds.publishableKey, account);
    const accessToken = res.body.content.tokens.accessToken as string;
    const as = (path: string, body: unknown, idempotencyKey: string) =>
      sendWithProof(svc.url, key, {}, 'POST', path, {
        headers: { 'x-service-api-key': creds.publishableKey, 'idempotency-key': idempotencyKey },
        body,
        accessToken,
      });
    const built = await as('/v1/tx/build', { operation: { type: 'changeTrust', asset, action: 'add' } }, 'ext-trust-b');
    assert.equal(built.status, 201, built.text);
    const tx = TransactionBuilder.fromXDR(built.body.content.unsignedXdr, networkPassphrase);
    tx.sign(account); // the user's signature only: the funding wallet's is the service's to add
    const submitted = await as('/v1/tx/submit', { signedXdr: tx.toXDR() }, 'ext-trust-s');
    assert.equal(submitted.status, 200, submitted.text);
    const gw = gatewayOf(svc);
    await eventually(
      'the trustline exists',
      async () => (await gw.trustlines(account.publicKey(), [asset!])).length === 1,
    );
    const [line] = await gw.trustlines(account.publicKey(), [asset!]);
    assert.equal(line!.sponsor, appWallet.publicKey, "the reserve is the app's");
    const cosigned = await svc.deps
      .db('audit_log')
      .where({ action: 'key.decrypt', wallet_id: appWallet.id, purpose: 'trustline.sponsor' })
      .count('* as n')
      .first();
    assert.ok(Number(cosigned?.n) >= 1, 'the funding wallet signed, and the signature was audited');
  });
});
