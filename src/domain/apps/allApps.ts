// What the admin CLI (npm run admin -- list-apps) lists and no API operation answers: every app of the database, whoever owns it (the Dashboard
// lists an operator's own apps only). Read-only.
import type { Knex } from 'knex';

export interface AppListing {
  id: string;
  name: string;
  network: string;
  status: string;
  ownerId: string;
  ownerEmail: string | null;
  createdAt: Date;
  /** The app's main wallet (global, or funding in the split layout); null before it has one. */
  walletPublicKey: string | null;
}

interface AppListingRow {
  id: string;
  name: string;
  network: string;
  status: string;
  owner_id: string;
  owner_email: string | null;
  created_at: Date;
  wallet_public_key: string | null;
}

/** Every app, oldest first, with its owner's email and main wallet. */
export async function listAllApps(db: Knex): Promise<AppListing[]> {
  const rows = await db('apps as a')
    .join('operators as o', 'o.id', 'a.owner_operator_id')
    .leftJoin('wallets as w', function () {
      this.on('w.app_id', 'a.id').andOn('w.network', 'a.network').andOnIn('w.role', ['global', 'funding']);
    })
    .orderBy([{ column: 'a.created_at' }, { column: 'a.id' }])
    .select<AppListingRow[]>(
      'a.id',
      'a.name',
      'a.network',
      'a.status',
      'o.id as owner_id',
      'o.email as owner_email',
      'a.created_at',
      'w.public_key as wallet_public_key',
    );
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    network: r.network,
    status: r.status,
    ownerId: r.owner_id,
    ownerEmail: r.owner_email,
    createdAt: r.created_at,
    walletPublicKey: r.wallet_public_key,
  }));
}
