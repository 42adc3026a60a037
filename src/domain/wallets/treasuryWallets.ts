// An app's own wallets and the roles they fill. Layout `single`: one `global` wallet pays reserves (funding), fees
// (gas) and distribution claims. Layout `split`: separate `funding`, `gas` and `distribution` wallets. The layout is
// read from the roles stored (a `global` wallet exists exactly in the single layout), so there is no second record
// to disagree with them. Joining keeps the gas and distribution rows (their accounts are merged away on-chain, their
// keys stay in custody), and splitting again re-creates those same accounts.
import type { Knex } from 'knex';
import type { NetworkName } from '../../config';
import { listAppWallets, type AppWalletRole, type WalletRecord } from './store';

export type TreasuryLayout = 'single' | 'split';
/** The jobs an app wallet does. */
export type TreasuryDuty = 'funding' | 'gas' | 'distribution';

/** The XLM balance at or below which a role is `low` (Treasury.yaml); gas: the fee policy's default. */
export const MINIMUM_BALANCE_XLM: Record<AppWalletRole, string> = {
  funding: '50',
  gas: '10',
  global: '50',
  distribution: '1',
};

export interface AppTreasuryWallets {
  layout: TreasuryLayout;
  /** The wallets shown for the layout, in role order: [global] or [funding, gas, distribution] (those that exist). */
  wallets: WalletRecord[];
}

const SPLIT_ORDER: AppWalletRole[] = ['funding', 'gas', 'distribution'];

/** The app's wallets on its network and the layout they form; undefined when the app has no wallet yet. */
export async function appTreasuryWallets(
  db: Knex,
  appId: string,
  network: NetworkName,
): Promise<AppTreasuryWallets | undefined> {
  const all = (await listAppWallets(db, appId)).filter((w) => w.network === network);
  const global = all.find((w) => w.role === 'global');
  if (global) return { layout: 'single', wallets: [global] };
  const split = SPLIT_ORDER.map((role) => all.find((w) => w.role === role)).filter(
    (w): w is WalletRecord => w !== undefined,
  );
  return split.length ? { layout: 'split', wallets: split } : undefined;
}

/** The wallet doing each duty in `treasury`: the global one in the single layout, else each role's own (if any). */
export function walletsByDuty(
  treasury: AppTreasuryWallets | undefined,
): Record<TreasuryDuty, WalletRecord | undefined> {
  const of = (duty: TreasuryDuty) =>
    treasury?.layout === 'single' ? treasury.wallets[0] : treasury?.wallets.find((w) => w.role === duty);
  return { funding: of('funding'), gas: of('gas'), distribution: of('distribution') };
}

/** The wallet doing `duty` for the app: the global one in the single layout, else the role's own. */
export async function appWalletFor(
  db: Knex,
  appId: string,
  network: NetworkName,
  duty: TreasuryDuty,
): Promise<WalletRecord | undefined> {
  return walletsByDuty(await appTreasuryWallets(db, appId, network))[duty];
}
