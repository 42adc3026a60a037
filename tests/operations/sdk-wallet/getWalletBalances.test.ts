// getWalletBalances (GET /v1/wallet/balances) over HTTP with real end-user sessions (email sign-in, DPoP), against
// the real service: PostgreSQL and the in-process localnet. Balances are compared with the ledger read directly.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Operation } from '@stellar/stellar-sdk';
import { appErrorOf } from '../../../src/domain/errors';
import { insertTransaction } from '../../../src/domain/transactions/store';
import { walletBalances } from '../../../src/domain/wallets/balances';
import { type WalletRecord } from '../../../src/domain/wallets/store';
import { fromStroops } from '../../../src/domain/money/amounts';
import { StellarUnavailableError } from '../../../src/infra/stellar/errors';
import { parseAsset, type StellarGateway } from '../../../src/infra/stellar/gateway';
import type { TestService } from '../../support/service';
import { signInUser } from '../../support/users';
import { appWithWallet, gatewayOf, issuer, payFromIssuer } from '../../support/funding';
import { startWalletService, getBalances, walletOf, sendFromWallet, walletlessRequest } from './setup';

let svc: TestService;
before(async () => {
  svc = await startWalletService();
});
after(async () => {
  await svc?.stop();
});

describe('GET /v1/wallet/balances', () => {
  test("funded, no configured asset: one XLM line, 0 held, 0 available (the reserve is the sponsor's)", async () => {
    const { creds } = await appWithWallet(svc, { settings: { fundingMode: 'immediate' } });
    const user = await signInUser(svc, creds);
    const res = await getBalances(user);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      content: {
        publicKey: user.signIn.wallet.publicKey,
        funded: true,
        balances: [{ asset: 'native', code: 'XLM', balance: '0', available: '0', type: 'native', enabledInApp: true }],
      },
      code: 'SDK_WALLET_BALANCES_FETCHED',
      success: true,
    });
  });

  test('funded with one configured asset: the trustline made at activation is listed; a payment to it shows', async () => {
    const {
      assets: [usdc],
      keypair,
    } = await issuer(svc, ['USDC']);
    const { creds } = await appWithWallet(svc, {
      settings: { fundingMode: 'immediate', assets: [usdc!], startingBalanceXlm: '1.5' },
    });
    const user = await signInUser(svc, creds);
    const first = await getBalances(user);
    assert.equal(first.status, 200);
    const issuerKey = keypair.publicKey();
    assert.deepEqual(first.body.content.balances, [
      { asset: 'native', code: 'XLM', balance: '1.5', available: '1.5', type: 'native', enabledInApp: true },
      {
        asset: usdc,
        code: 'USDC',
        issuer: issuerKey,
        balance: '0',
        available: '0',
        type: 'credit_alphanum4',
        enabledInApp: true,
      },
    ]);
    await payFromIssuer(svc, keypair, user.signIn.wallet.publicKey, usdc!, '125.5');
    const second = await getBalances(user);
    assert.deepEqual(second.body.content.balances[1], {
      asset: usdc,
      code: 'USDC',
      issuer: issuerKey,
      balance: '125.5',
      available: '125.5',
      type: 'credit_alphanum4',
      enabledInApp: true,
    });
  });

  test('unfunded (Deferred mode): funded false and no balances, not an error', async () => {
    const { creds } = await appWithWallet(svc, { settings: { fundingMode: 'deferred' } });
    const user = await signInUser(svc, creds);
    const res = await getBalances(user);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.content, { publicKey: user.signIn.wallet.publicKey, funded: false, balances: [] });
  });

  test('404 WALLET_NOT_FOUND when the user has no wallet on the network', async () => {
    const res = await walletlessRequest(svc, 'getWalletBalances', '/v1/wallet/balances');
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'WALLET_NOT_FOUND');
  });

  test("after a friendbot top-up the balance is the ledger's; trustlines of the wallet's own lock 0.5 XLM each", async () => {
    const {
      assets: [usdc],
    } = await issuer(svc, ['USDC']);
    const {
      assets: [tracked, untracked],
      keypair: otherIssuer,
    } = await issuer(svc, ['LONGCODE', 'EURC']);
    const { creds, app } = await appWithWallet(svc, { settings: { fundingMode: 'immediate', assets: [usdc!] } });
    const user = await signInUser(svc, creds);
    const wallet = await walletOf(svc, user, app.id);
    const gw = gatewayOf(svc);

    await gw.fundWithFriendbot(wallet.publicKey);
    let account = (await gw.loadAccount(wallet.publicKey))!;
    assert.equal(account.balanceStroops, 100_000_000_000n, 'friendbot tops up to 10,000 XLM');
    const topped = await getBalances(user);
    // The account's and the configured trustline's reserves are sponsored: nothing of its own is locked.
    assert.deepEqual(topped.body.content.balances[0], {
      asset: 'native',
      code: 'XLM',
      balance: '10000',
      available: '10000',
      type: 'native',
      enabledInApp: true,
    });

    // A trustline the wallet adds itself (unsponsored: it locks 0.5 XLM of its own), recorded as the service records
    // a changeTrust it made for the wallet; and one added outside the service, which Stellar RPC cannot discover.
    const hash = await sendFromWallet(svc, wallet, Operation.changeTrust({ asset: parseAsset(tracked!) }));
    await svc.deps.db.transaction((trx) =>
      insertTransaction(
        trx,
        {
          appId: app.id,
          network: 'testnet',
          walletId: wallet.id,
          userId: user.userId,
          origin: 'built',
          status: 'SUCCESS',
          stage: 'confirmed',
          operation: 'changeTrust',
          opsCount: 1,
          summary: 'Added LONGCODE',
          sourceAccount: wallet.publicKey,
          destination: null,
          asset: tracked!,
          amount: null,
          hash,
          at: new Date(),
        },
        [{ walletId: wallet.id, direction: 'sent', summary: 'Added LONGCODE' }],
      ),
    );
    await sendFromWallet(svc, wallet, Operation.changeTrust({ asset: parseAsset(untracked!) }));
    account = (await gw.loadAccount(wallet.publicKey))!;
    assert.equal(account.numSubEntries, 3);

    const res = await getBalances(user);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.content.balances, [
      // (2 + 3 subentries - 3 sponsored) x 0.5 XLM: its two own trustlines lock 1 XLM.
      {
        asset: 'native',
        code: 'XLM',
        balance: fromStroops(account.balanceStroops),
        available: fromStroops(account.balanceStroops - 10_000_000n),
        type: 'native',
        enabledInApp: true,
      },
      {
        asset: usdc,
        code: 'USDC',
        issuer: usdc!.split(':')[1],
        balance: '0',
        available: '0',
        type: 'credit_alphanum4',
        enabledInApp: true,
      },
      {
        asset: tracked,
        code: 'LONGCODE',
        issuer: otherIssuer.publicKey(),
        balance: '0',
        available: '0',
        type: 'credit_alphanum12',
        enabledInApp: false,
      },
    ]);
    assert.equal(account.balanceStroops, 100_000_000_000n - 200n, 'two fees of 100 stroops paid by the wallet');
  });

  test('Stellar RPC unreachable: 503 STELLAR_UNAVAILABLE (not a 500)', async () => {
    const { app } = await appWithWallet(svc, { funded: false });
    const wallet = {
      id: 'wal_none',
      publicKey: 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2',
      network: 'testnet',
    } as WalletRecord;
    const down = () =>
      Promise.reject(new StellarUnavailableError('Stellar RPC getLedgerEntries failed: connection refused'));
    const gateway = { ...gatewayOf(svc), loadAccount: down, trustlines: down, ledgerFigures: down } as StellarGateway;
    await assert.rejects(
      walletBalances(
        { db: svc.deps.db, stellar: { ...svc.deps.stellar!, gateways: { testnet: gateway } } },
        { app, wallet },
      ),
      (err: unknown) => appErrorOf(err)?.code === 'STELLAR_UNAVAILABLE' && appErrorOf(err)?.status === 503,
    );
  });
});
