// An app's own wallets (treasury): one `global` wallet from the app's creation, which plays the funding, gas and
// distribution roles until the operator splits them into wallets of their own. Funding them (friendbot on testnet)
// is the chain side's work; here they are created and stored.
import type { Knex } from 'knex';
import type { Deps } from '../deps';
import type { ApiKeyNetwork } from '../apiKeys/keyFormat';
import { createApp, type App } from '../apps/store';
import { newId } from '../ids';
import { withTx } from '../../infra/db/database';
import { createWallet, insertSealedWallet, sealNewWallet } from './custody';
import { findOwnedWallet, type AppWalletRole, type WalletRecord } from './store';

/**
 * Creates an app (store.createApp) and its global wallet in one transaction, so no app ever exists without it;
 * `alsoInTx` adds more to the same transaction (origins, keys). The wallet's key is sealed before the transaction
 * opens: the key management may be a network call (AWS KMS), and none is made inside a transaction.
 */
export async function createAppWithWallet<T = void>(
  deps: Pick<Deps, 'db' | 'kms' | 'clock' | 'jobs'>,
  input: { name: string; network: ApiKeyNetwork; ownerOperatorId: string },
  alsoInTx?: (trx: Knex.Transaction, app: App) => Promise<T>,
): Promise<{ app: App; wallet: WalletRecord; also: T }> {
  const at = deps.clock.now();
  const appId = newId('app');
  const sealed = await sealNewWallet(deps.kms, {
    appId,
    owner: { role: 'global' },
    network: input.network,
    createdAt: at,
  });
  return withTx(deps.db, async (trx) => {
    const app = await createApp(trx, { ...input, id: appId, at });
    const wallet = await insertSealedWallet(trx, sealed);
    if (!wallet) throw new Error(`the global wallet of the new app ${appId} was refused`);
    const also = (alsoInTx ? await alsoInTx(trx, app) : undefined) as T;
    return { app, wallet, also };
  });
}

/** The app's wallet in a role, if it has one. */
export async function findAppWallet(
  db: Knex,
  app: Pick<App, 'id' | 'network'>,
  role: AppWalletRole,
): Promise<WalletRecord | undefined> {
  return findOwnedWallet(db, { appId: app.id, network: app.network, owner: { role } });
}

/**
 * The app's wallet in a role, created when missing (apps created before wallets existed, a role split off the global
 * wallet). Safe to race: concurrent calls answer one wallet.
 */
export async function ensureAppWallet(
  deps: Pick<Deps, 'db' | 'kms' | 'clock' | 'jobs'>,
  input: { app: Pick<App, 'id' | 'network'>; role: AppWalletRole },
): Promise<WalletRecord> {
  const existing = await findAppWallet(deps.db, input.app, input.role);
  if (existing) return existing;
  return (await createWallet(deps, { appId: input.app.id, network: input.app.network, role: input.role })).wallet;
}
