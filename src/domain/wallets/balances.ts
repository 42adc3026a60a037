// A user wallet's balances as the SDK API shows them (the contract's Balance schema), read from Stellar RPC ledger
// entries now: the account entry (XLM, reserve counters, liabilities) and one trustline entry per asset.
//
// Stellar RPC reads ledger entries by key only: it cannot list the trustlines an account holds (that is Horizon's
// index, which the service never uses). So the service asks for the trustlines it can name: the app's configured
// assets, and every asset the wallet added a trustline for through the service (its successful changeTrust
// transactions). A trustline the wallet got any other way is not shown.
import type { Knex } from 'knex';
import type { Deps } from '../deps';
import { fromStroops } from '../money/amounts';
import {
  availableStroops,
  type AccountState,
  type StellarGateway,
  type TrustlineState,
} from '../../infra/stellar/gateway';
import type { App } from '../apps/store';
import { gatewayFor } from '../chain/gateways';
import type { WalletRecord } from './store';

/** One balance line (Balance.yaml). */
export interface BalanceLine {
  /** `native` or `CODE:ISSUER`. */
  asset: string;
  code: string;
  issuer?: string;
  balance: string;
  /** What can be spent now: balance - reserve (XLM only) - selling liabilities, never below 0. */
  available: string;
  type: 'native' | 'credit_alphanum4' | 'credit_alphanum12';
  /** The asset is one of the app's configured assets (XLM always is). */
  enabledInApp: boolean;
}

/** getWalletBalances' content. */
export interface WalletBalances {
  publicKey: string;
  /** Whether the account exists on-chain; an unfunded wallet has no balances. */
  funded: boolean;
  balances: BalanceLine[];
}

/** getLedgerEntries takes at most 200 keys per call. */
const MAX_KEYS_PER_READ = 200;

const nonNegative = (stroops: bigint): bigint => (stroops > 0n ? stroops : 0n);

/**
 * The balance lines of an existing account: XLM first, then its trustlines in the order given. Pure: the reads are
 * the caller's.
 */
export function balanceLines(input: {
  account: AccountState;
  baseReserveStroops: bigint;
  trustlines: TrustlineState[];
  configuredAssets: readonly string[];
}): BalanceLine[] {
  const configured = new Set(input.configuredAssets);
  const native: BalanceLine = {
    asset: 'native',
    code: 'XLM',
    balance: fromStroops(input.account.balanceStroops),
    available: fromStroops(nonNegative(availableStroops(input.account, input.baseReserveStroops))),
    type: 'native',
    enabledInApp: true,
  };
  return [
    native,
    ...input.trustlines.map((line): BalanceLine => {
      const [code, issuer] = line.asset.split(':') as [string, string];
      return {
        asset: line.asset,
        code,
        issuer,
        balance: fromStroops(line.balanceStroops),
        available: fromStroops(nonNegative(line.balanceStroops - line.sellingLiabilitiesStroops)),
        type: code.length <= 4 ? 'credit_alphanum4' : 'credit_alphanum12',
        enabledInApp: configured.has(line.asset),
      };
    }),
  ];
}

/**
 * The assets whose trustlines are looked up for a wallet: the app's configured assets (in the operator's order), then
 * those the wallet added through the service (oldest first), without repeats.
 */
export async function trackedAssets(
  db: Knex,
  input: { app: Pick<App, 'assets'>; walletId: string },
): Promise<string[]> {
  // Reached through the wallet's history (indexed by wallet), not a scan of every transaction: `transactions` has no
  // index on wallet_id, and every transaction the service makes for a wallet is in that wallet's history.
  const added: { asset: string }[] = await db('tx_history as h')
    .join('transactions as t', 't.id', 'h.transaction_id')
    .where({
      'h.wallet_id': input.walletId,
      't.wallet_id': input.walletId,
      't.operation': 'changeTrust',
      't.status': 'SUCCESS',
    })
    .whereNotNull('t.asset')
    .whereNot('t.asset', 'native')
    .groupBy('t.asset')
    .orderByRaw('min(t.created_at)')
    .select('t.asset as asset');
  return [...new Set([...input.app.assets, ...added.map((r) => r.asset)])];
}

async function trustlinesOf(gw: StellarGateway, address: string, assets: string[]): Promise<TrustlineState[]> {
  const chunks: string[][] = [];
  for (let i = 0; i < assets.length; i += MAX_KEYS_PER_READ) chunks.push(assets.slice(i, i + MAX_KEYS_PER_READ));
  return (await Promise.all(chunks.map((chunk) => gw.trustlines(address, chunk)))).flat();
}

/** The wallet's balances read from the chain now; 503 STELLAR_UNAVAILABLE when Stellar RPC cannot be reached. */
export async function walletBalances(
  deps: Pick<Deps, 'db' | 'stellar'>,
  input: { app: App; wallet: WalletRecord },
): Promise<WalletBalances> {
  const { app, wallet } = input;
  const gw = gatewayFor(deps, wallet.network);
  const assets = await trackedAssets(deps.db, { app, walletId: wallet.id });
  // Three independent reads; a missing account simply has no trustlines.
  const [account, trustlines, figures] = await Promise.all([
    gw.loadAccount(wallet.publicKey),
    trustlinesOf(gw, wallet.publicKey, assets),
    gw.ledgerFigures(),
  ]);
  if (!account) return { publicKey: wallet.publicKey, funded: false, balances: [] };
  return {
    publicKey: wallet.publicKey,
    funded: true,
    balances: balanceLines({
      account,
      baseReserveStroops: figures.baseReserveStroops,
      trustlines,
      configuredAssets: app.assets,
    }),
  };
}
