// What the wallet-read operations' tests share (getWallet, getWalletBalances): the service they run against and how
// they read a user's wallet, send from it, or ask as a user who has none.
import assert from 'node:assert/strict';
import { Account, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { SYSTEM_ACTOR } from '../../../src/domain/audit/auditLog';
import { withWalletKeypair } from '../../../src/domain/wallets/custody';
import { findOwnedWallet, type WalletRecord } from '../../../src/domain/wallets/store';
import { headersFor, withSessions } from '../../support/credentials';
import { call } from '../../support/http';
import { startTestService, type TestService } from '../../support/service';
import type { UserClient } from '../../support/users';
import { appWithWallet, gatewayOf } from '../../support/funding';

/** The service of one test file: real PostgreSQL and the in-process localnet, ledgers closed every 100 ms. */
export function startWalletService(): Promise<TestService> {
  return startTestService({}, { closeLedgersEveryMs: 100 });
}

export const getWallet = (user: UserClient) => user.call('getWallet', 'GET', '/v1/wallet');
export const getBalances = (user: UserClient) => user.call('getWalletBalances', 'GET', '/v1/wallet/balances');

export async function walletOf(svc: TestService, user: UserClient, appId: string): Promise<WalletRecord> {
  const wallet = await findOwnedWallet(svc.deps.db, { appId, network: 'testnet', owner: { userId: user.userId } });
  assert.ok(wallet, 'the user has a wallet');
  return wallet;
}

/** Sends one operation from a user wallet, signed with its custodial key, paying its own fee. */
export async function sendFromWallet(
  svc: TestService,
  wallet: WalletRecord,
  op: ReturnType<typeof Operation.changeTrust>,
): Promise<string> {
  const gw = gatewayOf(svc);
  const account = (await gw.loadAccount(wallet.publicKey))!;
  const tx = new TransactionBuilder(new Account(wallet.publicKey, account.sequence), {
    fee: '100',
    networkPassphrase: gw.networkPassphrase,
  })
    .addOperation(op)
    .setTimeout(60)
    .build();
  await withWalletKeypair(svc.deps, { walletId: wallet.id, purpose: 'test.send', actor: SYSTEM_ACTOR }, async (kp) =>
    tx.sign(kp),
  );
  return (await gw.submitAndConfirm(tx)).hash;
}

/** A session of a user without a wallet on the network (minted directly: sign-in would create the wallet). */
export async function walletlessRequest(
  svc: TestService,
  operationId: 'getWallet' | 'getWalletBalances',
  path: string,
) {
  const { creds } = await appWithWallet(svc, { funded: false });
  const sessions = await withSessions(svc.deps, creds);
  const headers = await headersFor(['publishableKey', 'userSession', 'dpopProof'], sessions, {
    method: 'GET',
    url: `${svc.url}${path}`,
  });
  return call(svc.url, operationId, 'GET', path, { headers });
}
