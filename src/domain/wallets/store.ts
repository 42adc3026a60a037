// Storage of wallets, without their secrets: every read here selects the public columns only, so a wallet record
// handed around the service never carries key material, even encrypted. Sealing and unsealing live in custody.ts.
import type { Knex } from 'knex';
import type { NetworkName } from '../../config';
import { preparedQuery } from '../../infra/db/database';

export type AppWalletRole = 'global' | 'funding' | 'gas' | 'distribution';
export type FundingState = 'unfunded' | 'activating' | 'funded';
/** Who holds the key: the service (under key management), or the end user's own wallet (SEP-10 sign-in). */
export type Custody = 'custodial' | 'external';

export interface WalletRecord {
  id: string;
  appId: string;
  /** The end user owning it; null for an app wallet. */
  userId: string | null;
  /** The app wallet's role; null for a user wallet. */
  role: AppWalletRole | null;
  network: NetworkName;
  /** The G-address. */
  publicKey: string;
  custody: Custody;
  /** The master key its data key is wrapped under; null for an external wallet (no key here). */
  kmsKeyId: string | null;
  fundingState: FundingState;
  fundedAt: Date | null;
  createdAt: Date;
}

/** Which wallet of its owner a wallet is: an end user's on one network, or an app's in one role. */
export type WalletOwner = { userId: string; role?: undefined } | { role: AppWalletRole; userId?: undefined };

/** The public columns: what every wallet read selects. */
export const PUBLIC_COLUMNS: (keyof WalletRow)[] = [
  'id',
  'app_id',
  'user_id',
  'role',
  'network',
  'public_key',
  'custody',
  'kms_key_id',
  'funding_state',
  'funded_at',
  'created_at',
];

/** A `wallets` row's public columns (migration 0010): never the sealed secret or its wrapped data key. */
export interface WalletRow {
  id: string;
  app_id: string;
  user_id: string | null;
  role: AppWalletRole | null;
  network: NetworkName;
  public_key: string;
  custody: Custody;
  kms_key_id: string | null;
  funding_state: FundingState;
  funded_at: Date | null;
  created_at: Date;
}

export function toWalletRecord(row: WalletRow): WalletRecord {
  return {
    id: row.id,
    appId: row.app_id,
    userId: row.user_id,
    role: row.role,
    network: row.network,
    publicKey: row.public_key,
    custody: row.custody,
    kmsKeyId: row.kms_key_id,
    fundingState: row.funding_state,
    fundedAt: row.funded_at,
    createdAt: row.created_at,
  };
}

export async function findWallet(db: Knex, walletId: string): Promise<WalletRecord | undefined> {
  const row = await db<WalletRow>('wallets').where({ id: walletId }).first(PUBLIC_COLUMNS);
  return row ? toWalletRecord(row) : undefined;
}

/** The wallets with these ids (any order; unknown ids are left out). */
export async function findWallets(db: Knex, walletIds: readonly string[]): Promise<WalletRecord[]> {
  if (walletIds.length === 0) return [];
  const rows = await db<WalletRow>('wallets').whereIn('id', walletIds).select(PUBLIC_COLUMNS);
  return rows.map(toWalletRecord);
}

export async function findWalletByPublicKey(db: Knex, publicKey: string): Promise<WalletRecord | undefined> {
  const row = await db<WalletRow>('wallets').where({ public_key: publicKey }).first(PUBLIC_COLUMNS);
  return row ? toWalletRecord(row) : undefined;
}

/** The wallet in an owner's slot: the user's on `network`, or the app's in a role. */
export async function findOwnedWallet(
  db: Knex,
  input: { appId: string; network: NetworkName; owner: WalletOwner },
): Promise<WalletRecord | undefined> {
  const query = db<WalletRow>('wallets').where({ app_id: input.appId, network: input.network });
  if (input.owner.userId !== undefined) query.where({ user_id: input.owner.userId });
  else query.where({ role: input.owner.role });
  const row = await query.first(PUBLIC_COLUMNS);
  return row ? toWalletRecord(row) : undefined;
}

/** Every wallet of these users (any network), oldest first: one query for a whole page of users. */
export async function listWalletsOfUsers(db: Knex, userIds: readonly string[]): Promise<WalletRecord[]> {
  if (userIds.length === 0) return [];
  const rows = await db<WalletRow>('wallets')
    .whereIn('user_id', userIds)
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .select(PUBLIC_COLUMNS);
  return rows.map(toWalletRecord);
}

/** An app's own wallets (not its users'), by role. */
export async function listAppWallets(db: Knex, appId: string): Promise<WalletRecord[]> {
  const { rows } = await preparedQuery<WalletRow>(db, 'wallets-of-app', APP_WALLETS_SQL, [appId]);
  return rows.map(toWalletRecord);
}

/** A prepared statement: every sponsored transaction finds its app's gas wallet here (database.ts preparedQuery). */
const APP_WALLETS_SQL = `select ${PUBLIC_COLUMNS.join(', ')} from wallets
  where app_id = $1 and role is not null order by created_at, id`;
