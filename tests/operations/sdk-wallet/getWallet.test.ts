// getWallet (GET /v1/wallet) over HTTP with real end-user sessions (email sign-in, DPoP), against the real
// service: PostgreSQL and the in-process localnet.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestService } from '../../support/service';
import { signInUser } from '../../support/users';
import { appWithWallet } from '../../support/funding';
import { startWalletService, getWallet, walletOf, walletlessRequest } from './setup';

let svc: TestService;
before(async () => {
  svc = await startWalletService();
});
after(async () => {
  await svc?.stop();
});

describe('GET /v1/wallet', () => {
  test('Immediate mode: the wallet created and funded at sign-in, as sign-in showed it', async () => {
    const { creds, app } = await appWithWallet(svc, { settings: { fundingMode: 'immediate' } });
    const user = await signInUser(svc, creds);
    const res = await getWallet(user);
    assert.equal(res.status, 200);
    assert.equal(res.body.code, 'SDK_WALLET_FETCHED');
    const stored = await walletOf(svc, user, app.id);
    assert.deepEqual(res.body.content, {
      walletId: stored.id,
      publicKey: stored.publicKey,
      network: 'testnet',
      custody: 'custodial',
      funded: true,
      fundedAt: stored.fundedAt!.toISOString(),
      createdAt: stored.createdAt.toISOString(),
    });
    assert.equal(res.body.content.publicKey, user.signIn.wallet.publicKey);
  });

  test('Deferred mode: funded false and fundedAt null until the app funds it', async () => {
    const { creds } = await appWithWallet(svc, { settings: { fundingMode: 'deferred' } });
    const user = await signInUser(svc, creds);
    const res = await getWallet(user);
    assert.equal(res.status, 200);
    assert.equal(res.body.content.funded, false);
    assert.equal(res.body.content.fundedAt, null);
    assert.equal(res.body.content.publicKey, user.signIn.wallet.publicKey);
  });

  test('404 WALLET_NOT_FOUND when the user has no wallet on the network', async () => {
    const res = await walletlessRequest(svc, 'getWallet', '/v1/wallet');
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'WALLET_NOT_FOUND');
  });
});
