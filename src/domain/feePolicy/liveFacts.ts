// The facts of a fee-policy decision that come from the service's state rather than from the transaction: the wallet
// that pays fee-bumps with its XLM balance on the chain now, and the user's sponsored operations counted today. One
// reading for a submission (transactions/policyCheck.ts) and for the Dashboard's dry run (preview.ts), so both judge
// the same state the same way. Read for every decision: the count fresh, the gas balance fresh or (asked for) at most
// a second old.
import type { Deps } from '../deps';
import type { StellarGateway } from '../../infra/stellar/gateway';
import { appWalletFor } from '../wallets/treasuryWallets';
import type { WalletRecord } from '../wallets/store';
import { opsUsedToday } from './dailyOps';

export interface LiveFacts {
  /** The wallet that pays the fee-bump (`gas`, or `global` in the single layout); undefined when the app has none. */
  gasWallet: WalletRecord | undefined;
  /** Its XLM balance; undefined when it has no account on the network. */
  gasBalanceStroops: bigint | undefined;
  /** The user's sponsored operations counted today (UTC); 0 without a user. */
  opsToday: number;
  /** The gas balance was read now, not taken from a reading up to GAS_BALANCE_MAX_AGE_MS old. */
  gasBalanceFresh: boolean;
}

/**
 * How old the gas wallet's balance may be when asked for (`recent`): one read a second serves every decision of the
 * app meanwhile (a ledger closes every 5 s on the public networks). Only an allowance is decided on such a reading:
 * a denial is judged again on a fresh one (transactions/policyCheck.ts), so a top-up is never refused for a second.
 */
export const GAS_BALANCE_MAX_AGE_MS = 1_000;

/** Reads the live facts on `gw`'s network; the chain's failures propagate (503 STELLAR_UNAVAILABLE). */
export async function readLiveFacts(
  deps: Pick<Deps, 'db' | 'clock'>,
  input: { appId: string; gw: StellarGateway; userId?: string; recent?: boolean },
): Promise<LiveFacts> {
  const { appId, gw, userId } = input;
  const maxAgeMs = input.recent ? GAS_BALANCE_MAX_AGE_MS : 0;
  const [gasWallet, opsToday] = await Promise.all([
    appWalletFor(deps.db, appId, gw.network, 'gas'),
    userId === undefined ? 0 : opsUsedToday(deps.db, { appId, userId, at: deps.clock.now() }),
  ]);
  const gasAccount = gasWallet ? await gw.loadAccount(gasWallet.publicKey, { maxAgeMs }) : undefined;
  return { gasWallet, gasBalanceStroops: gasAccount?.balanceStroops, opsToday, gasBalanceFresh: maxAgeMs === 0 };
}
