// createWalletSignInChallenge (GET /v1/auth/wallet/challenge): a SEP-10 challenge for the user's own Stellar account.
// Shared set-up: walletSignIn.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair, Networks, WebAuth } from '@stellar/stellar-sdk';
import { addAppOrigins } from '../../../src/domain/apps/store';
import { sep10SigningKeypair } from '../../../src/domain/sep10/challenges';
import { call } from '../../support/http';
import { challenge, svc, useService, walletApp } from './walletSignIn.setup';

describe('createWalletSignInChallenge', () => {
  useService();

  test("a challenge of the service's key for the account, valid 900 s, named for the service without an Origin", async () => {
    const { creds } = await walletApp();
    const account = Keypair.random().publicKey();
    const res = await challenge(creds.publishableKey, account);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'SDK_WALLET_CHALLENGE_CREATED');
    const { transaction, networkPassphrase, expiresAt } = res.body.content;
    assert.equal(networkPassphrase, Networks.TESTNET);
    const server = sep10SigningKeypair(svc.deps.secrets).publicKey();
    const read = WebAuth.readChallengeTx(transaction, server, networkPassphrase, 'localhost', 'localhost');
    assert.equal(read.clientAccountID, account);
    assert.equal(read.matchedHomeDomain, 'localhost');
    const bounds = read.tx.timeBounds!;
    assert.equal(Number(bounds.maxTime) - Number(bounds.minTime), 900);
    assert.equal(new Date(expiresAt).getTime(), Number(bounds.maxTime) * 1000);
  });

  test("from an allowed browser origin the home domain is the app's site, which the wallet shows the user", async () => {
    const { creds, app } = await walletApp();
    await addAppOrigins(svc.deps.db, app.id, ['https://wallet.example.com']);
    const res = await challenge(creds.publishableKey, Keypair.random().publicKey(), {
      origin: 'https://wallet.example.com',
    });
    assert.equal(res.status, 200, res.text);
    const server = sep10SigningKeypair(svc.deps.secrets).publicKey();
    const read = WebAuth.readChallengeTx(
      res.body.content.transaction,
      server,
      Networks.TESTNET,
      'wallet.example.com',
      'localhost',
    );
    assert.equal(read.matchedHomeDomain, 'wallet.example.com');
    assert.equal(res.headers.get('access-control-allow-origin'), 'https://wallet.example.com');
  });

  test('refusals: a bad checksum 400, wallet sign-in off 403, a secret key 403, no key 401', async () => {
    const { creds } = await walletApp();
    const good = Keypair.random().publicKey();
    const bad = `${good.slice(0, 55)}${good.endsWith('A') ? 'B' : 'A'}`;
    const invalid = await challenge(creds.publishableKey, bad);
    assert.equal(invalid.status, 400);
    assert.deepEqual(invalid.body.details.fieldErrors, { 'query.account': ['must be a Stellar G-address (checksum)'] });
    const off = await walletApp({ enabled: false });
    const disabled = await challenge(off.creds.publishableKey, good);
    assert.equal(disabled.status, 403);
    assert.equal(disabled.body.code, 'AUTH_PROVIDER_DISABLED');
    const secret = await challenge(creds.secretKey, good);
    assert.equal(secret.status, 403);
    assert.equal(secret.body.code, 'API_KEY_TYPE_NOT_ALLOWED');
    const anonymous = await call(
      svc.url,
      'createWalletSignInChallenge',
      'GET',
      `/v1/auth/wallet/challenge?account=${good}`,
    );
    assert.equal(anonymous.status, 401);
  });
});
