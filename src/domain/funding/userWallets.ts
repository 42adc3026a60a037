// End users' wallets: one per user per network, created at the user's first sign-in on the app's network. What the
// rest of the service (sign-in, getUser, the Dashboard's users list) reads of them is the WalletView.
import type { Knex } from 'knex';
import type { NetworkName } from '../../config';
import type { App } from '../apps/store';
import { createWallet } from '../wallets/custody';
import { activateOnSignIn, type FundingDeps } from './funding';
import { findOwnedWallet, listWalletsOfUsers, type WalletRecord } from '../wallets/store';

/** A wallet as the API shows it (the contract's Wallet schema). */
export interface WalletView {
  walletId: string;
  publicKey: string;
  network: 'testnet' | 'mainnet';
  custody: 'custodial' | 'external';
  /** True once the wallet can transact: reserve sponsored (custodial), or the account on the ledger (external). */
  funded: boolean;
  fundedAt: string | null;
  createdAt: string;
}

export function walletView(wallet: WalletRecord): WalletView {
  return {
    walletId: wallet.id,
    publicKey: wallet.publicKey,
    network: wallet.network,
    custody: wallet.custody,
    funded: wallet.fundingState === 'funded',
    fundedAt: wallet.fundedAt ? wallet.fundedAt.toISOString() : null,
    createdAt: wallet.createdAt.toISOString(),
  };
}

/**
 * The user's wallet on the app's network, created on the first call. Safe to race: any number of concurrent calls
 * for one user answer the same single wallet. In Immediate funding mode a new wallet is activated at once (the
 * sponsored activation of funding.ts); if that cannot complete in time the wallet is answered unfunded and the
 * activation goes on in the background. In Deferred mode it stays unfunded until POST /v1/wallets/fund.
 */
export async function ensureUserWallet(deps: FundingDeps, input: { app: App; userId: string }): Promise<WalletView> {
  const existing = await findUserWallet(deps.db, {
    appId: input.app.id,
    userId: input.userId,
    network: input.app.network,
  });
  if (existing) return existing;
  const { wallet } = await createWallet(deps, {
    appId: input.app.id,
    network: input.app.network,
    userId: input.userId,
    createdStatus: input.app.fundingMode === 'immediate' ? 'pending' : 'unfunded',
  });
  return walletView(await activateOnSignIn(deps, { app: input.app, wallet }));
}

/** The user's wallet on `network`, if it exists yet. */
export async function findUserWallet(
  db: Knex,
  input: { appId: string; userId: string; network: NetworkName },
): Promise<WalletView | undefined> {
  const wallet = await findOwnedWallet(db, {
    appId: input.appId,
    network: input.network,
    owner: { userId: input.userId },
  });
  return wallet ? walletView(wallet) : undefined;
}

/** Every wallet of the user (one per network), oldest first. */
export async function listUserWallets(db: Knex, userId: string): Promise<WalletView[]> {
  return (await listWalletsOfUsers(db, [userId])).map(walletView);
}

/** The wallets of a page of users in one query, by user id (a user without a wallet maps to an empty list). */
export async function listWalletsByUser(db: Knex, userIds: readonly string[]): Promise<Map<string, WalletView[]>> {
  const byUser = new Map<string, WalletView[]>(userIds.map((id) => [id, []]));
  for (const wallet of await listWalletsOfUsers(db, userIds)) byUser.get(wallet.userId!)?.push(walletView(wallet));
  return byUser;
}
