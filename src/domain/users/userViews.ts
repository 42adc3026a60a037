// Users as the contract shows them: the User schema (Server API getUser and setUserExternalId, Dashboard getAppUser)
// with every provider used and every wallet, and the Dashboard's list row (AppUserSummary). Wallets are read through
// the custody module's views.
import type { Knex } from 'knex';
import { listUserWallets, listWalletsByUser, type WalletView } from '../funding/userWallets';
import { providersOf, type AuthProvider, type User } from './users';

export interface UserContent {
  userId: string;
  externalId: string | null;
  email: string | null;
  providers: AuthProvider[];
  wallets: WalletView[];
  createdAt: string;
  lastSeenAt: string | null;
}

/** The User schema of one user: its providers and wallets read now. */
export async function userContent(db: Knex, user: User): Promise<UserContent> {
  const [providers, wallets] = await Promise.all([providersOf(db, [user.id]), listUserWallets(db, user.id)]);
  return {
    userId: user.id,
    externalId: user.externalId,
    email: user.email,
    // A user is created with an identity, so the list is never empty; the last provider is the fallback all the same.
    providers: providers.get(user.id) ?? [user.lastProvider],
    wallets,
    createdAt: user.createdAt.toISOString(),
    lastSeenAt: user.lastSeenAt?.toISOString() ?? null,
  };
}

export interface AppUserSummaryContent {
  userId: string;
  externalId: string | null;
  email: string | null;
  provider: AuthProvider;
  wallet: { publicKey: string; funded: boolean } | null;
  createdAt: string;
  lastSeenAt: string | null;
}

/** The Dashboard's rows for a page of users of one app: each with its wallet on the app's network. */
export async function appUserSummaries(
  db: Knex,
  users: User[],
  network: 'testnet' | 'mainnet',
): Promise<AppUserSummaryContent[]> {
  const walletsByUser = await listWalletsByUser(
    db,
    users.map((u) => u.id),
  );
  return users.map((user) => {
    const wallet = walletsByUser.get(user.id)?.find((w) => w.network === network);
    return {
      userId: user.id,
      externalId: user.externalId,
      email: user.email,
      provider: user.lastProvider,
      wallet: wallet ? { publicKey: wallet.publicKey, funded: wallet.funded } : null,
      createdAt: user.createdAt.toISOString(),
      lastSeenAt: user.lastSeenAt?.toISOString() ?? null,
    };
  });
}
