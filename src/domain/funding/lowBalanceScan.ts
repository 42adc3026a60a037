// The periodic sweep behind `sponsor.balance.low` "repeated every 24 h until topped up": spenders report a sponsor
// wallet only when they spend from it (an activation, lowBalance.ts), so a wallet that stays low while nothing is
// spent, or a gas wallet drained by fee-bumps, would never be reported (again) without it. Each pass reads every app
// wallet of every active app on each configured network through Stellar RPC and hands each reading to
// reportLowBalance, which records the event only when the wallet is low and was not reported in the last 24 h; so
// passes of several instances, and activations reporting at the same time, still make one event per wallet a day.
import type { Knex } from 'knex';
import type { NetworkName } from '../../config';
import type { Deps } from '../deps';
import { StellarUnavailableError } from '../../infra/stellar/errors';
import type { StellarGateway } from '../../infra/stellar/gateway';
import { PUBLIC_COLUMNS, toWalletRecord, type WalletRecord } from '../wallets/store';
import { MINIMUM_BALANCE_XLM } from '../wallets/treasuryWallets';
import { isLow, reportLowBalance, type SponsorBalanceReading } from './lowBalance';

export type SponsorScanDeps = Pick<Deps, 'db' | 'clock' | 'log' | 'stellar' | 'jobs'>;

/** How often a pass runs: well inside the 24 h between reports, and a few RPC reads per 200 wallets each time. */
export const SPONSOR_SCAN_INTERVAL_MS = 10 * 60_000;
/** The first pass waits this long after start, so it does not compete with start-up (recovery, first requests). */
export const SPONSOR_SCAN_FIRST_DELAY_MS = 5_000;
/** Apps read per page (each has at most 4 wallets: one per role). */
const APP_PAGE = 100;
/** Addresses per getLedgerEntries call (the RPC's limit, StellarGateway.loadAccounts). */
const ACCOUNTS_PER_READ = 200;

/**
 * The wallets an app's layout shows, as appTreasuryWallets (appWallets.ts) decides it: a `global` wallet means the
 * single layout, whose leftover gas and distribution rows have had their accounts merged away (they are not
 * sponsors, and a missing account would read as 0); the global wallet's one reading, at its own higher minimum, also
 * covers its gas duty.
 */
function walletsShown(wallets: WalletRecord[]): WalletRecord[] {
  const byApp = new Map<string, WalletRecord[]>();
  for (const w of wallets) byApp.set(w.appId, [...(byApp.get(w.appId) ?? []), w]);
  return [...byApp.values()].flatMap((own) => {
    const global = own.find((w) => w.role === 'global');
    return global ? [global] : own;
  });
}

/** One page of active apps on `network` after `afterId` (by id), with their app wallets. */
async function appWalletsPage(
  db: Knex,
  network: NetworkName,
  afterId: string,
): Promise<{ lastAppId?: string; wallets: WalletRecord[] }> {
  const appIds = await db<{ id: string; status: string; network: NetworkName }>('apps')
    .where({ status: 'active', network })
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(APP_PAGE)
    .pluck('id');
  if (appIds.length === 0) return { wallets: [] };
  const rows = await db('wallets')
    .whereIn('app_id', appIds)
    .where({ network })
    .whereNotNull('role')
    .orderBy(['app_id', 'id'])
    .select(PUBLIC_COLUMNS);
  return { lastAppId: appIds[appIds.length - 1], wallets: walletsShown(rows.map(toWalletRecord)) };
}

/** Reads and reports one network's app wallets; answers how many events were recorded. */
async function scanNetwork(deps: SponsorScanDeps, network: NetworkName, gw: StellarGateway): Promise<number> {
  let recorded = 0;
  for (let afterId = ''; ;) {
    const page = await appWalletsPage(deps.db, network, afterId);
    if (!page.lastAppId) return recorded;
    afterId = page.lastAppId;
    for (let i = 0; i < page.wallets.length; i += ACCOUNTS_PER_READ) {
      const wallets = page.wallets.slice(i, i + ACCOUNTS_PER_READ);
      const accounts = await gw.loadAccounts(wallets.map((w) => w.publicKey));
      const at = deps.clock.now();
      for (const w of wallets) {
        const role = w.role!;
        const reading: SponsorBalanceReading = {
          appId: w.appId,
          walletType: role,
          address: w.publicKey,
          // Not on the ledger (never funded, or not yet): nothing to spend, so 0.
          balanceStroops: accounts.get(w.publicKey)?.balanceStroops ?? 0n,
          thresholdXlm: MINIMUM_BALANCE_XLM[role],
          at,
        };
        if (!isLow(reading)) continue;
        if (await deps.db.transaction((trx) => reportLowBalance(deps, trx, reading))) recorded += 1;
      }
    }
  }
}

/**
 * One pass over every app wallet of every active app, on each network with a gateway; answers how many
 * `sponsor.balance.low` events it recorded. A network whose RPC cannot be reached is skipped for this pass (logged
 * as a warning): the next pass reads it again, and nothing is reported from a reading that was not made.
 */
export async function scanSponsorBalances(deps: SponsorScanDeps): Promise<number> {
  let recorded = 0;
  for (const [network, gw] of Object.entries(deps.stellar?.gateways ?? {}) as [
    NetworkName,
    StellarGateway | undefined,
  ][]) {
    if (!gw) continue;
    try {
      recorded += await scanNetwork(deps, network, gw);
    } catch (err) {
      if (!(err instanceof StellarUnavailableError)) throw err;
      deps.log.warn({ err, network }, 'sponsor balance scan: the Stellar RPC could not be reached; skipping this pass');
    }
  }
  return recorded;
}
