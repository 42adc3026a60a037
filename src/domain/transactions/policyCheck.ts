// Gathers what the fee-bump policy (src/domain/feePolicy) decides on for one inner transaction: the fee-bump fee, the
// assets and operations, and the live facts (feePolicy/liveFacts.ts: the gas wallet's balance on the chain, the
// user's operations today). Read fresh for every decision; nothing here comes from the client.
import type { Transaction } from '@stellar/stellar-sdk';
import type { Deps } from '../deps';
import type { StellarGateway } from '../../infra/stellar/gateway';
import type { App } from '../apps/store';
import { evaluatePolicy, type PolicyReason } from '../feePolicy/evaluate';
import { readLiveFacts, type LiveFacts } from '../feePolicy/liveFacts';
import { loadFeePolicy, type FeePolicy } from '../feePolicy/policy';
import type { WalletRecord } from '../wallets/store';
import type { TxDescription } from './describe';
import { feeBumpFeeOf } from './feeBump';

export interface PolicyDecision {
  policy: FeePolicy;
  /** Every failing rule; the daily cap judged against today's count (a real submission reserves instead). */
  reasons: PolicyReason[];
  /** The same rules without the daily cap: what a real submission checks before reserving its operations. */
  staticReasons: PolicyReason[];
  feeStroops: bigint;
  /** The wallet that pays the fee-bump; undefined when the app has none on the network. */
  gasWallet: WalletRecord | undefined;
}

/**
 * The assets of the claimable balances and liquidity pools the transaction names, read from the ledger; an entry the
 * ledger does not have leaves its operation undetermined (denied).
 */
async function ledgerAssetsOf(
  gw: StellarGateway,
  description: TxDescription,
): Promise<{ assets: string[]; undetermined: string[] }> {
  const lookups = description.ledgerAssetLookups;
  if (lookups.length === 0) return { assets: [], undetermined: [] };
  const found = await gw.ledgerAssets({
    claimableBalances: lookups.filter((l) => l.kind === 'claimableBalance').map((l) => l.id),
    liquidityPools: lookups.filter((l) => l.kind === 'liquidityPool').map((l) => l.id),
  });
  const assets: string[] = [];
  const undetermined: string[] = [];
  for (const l of lookups) {
    const on = l.kind === 'claimableBalance' ? found.claimableBalances.get(l.id) : found.liquidityPools.get(l.id);
    if (on === undefined)
      undetermined.push(
        `${l.operation} (no such ${l.kind === 'claimableBalance' ? 'claimable balance' : 'liquidity pool'} on the ledger)`,
      );
    else assets.push(...(Array.isArray(on) ? on : [on]));
  }
  return { assets, undetermined };
}

/** What a decision reads besides the transaction: the app's policy and the live facts (feePolicy/liveFacts.ts). */
export interface PolicyState {
  policy: FeePolicy;
  live: LiveFacts;
}

/**
 * Reads the policy state (the gas balance may be a recent reading: liveFacts.ts); a run reads it while it builds,
 * since neither needs the other.
 */
export async function readPolicyState(
  deps: Pick<Deps, 'db' | 'clock'>,
  input: { app: App; userId: string; gw: StellarGateway },
): Promise<PolicyState> {
  const [policy, live] = await Promise.all([
    loadFeePolicy(deps.db, input.app.id),
    readLiveFacts(deps, { appId: input.app.id, gw: input.gw, userId: input.userId, recent: true }),
  ]);
  return { policy, live };
}

export async function decidePolicy(
  deps: Pick<Deps, 'db' | 'clock'>,
  input: {
    app: App;
    userId: string;
    gw: StellarGateway;
    inner: Transaction;
    description: TxDescription;
    /** Read in this request already (readPolicyState); read here when absent. */
    state?: PolicyState;
  },
): Promise<PolicyDecision> {
  const { app, gw, inner, description } = input;
  const { policy, live: read } = input.state ?? (await readPolicyState(deps, input));
  const ledger = await ledgerAssetsOf(gw, description);
  const feeStroops = feeBumpFeeOf(inner);
  const judge = (live: LiveFacts) =>
    evaluatePolicy(policy, {
      feeStroops,
      movedAssets: [...new Set([...description.movedAssets, ...ledger.assets])],
      undeterminedAssetOperations: [...description.undeterminedAssetOperations, ...ledger.undetermined],
      operationTypes: description.operationTypes,
      accountMergeDestinations: description.accountMergeDestinations,
      gasBalanceStroops: live.gasBalanceStroops,
      configuredAssets: app.assets,
      opsCount: description.opsCount,
      opsToday: live.opsToday,
    });
  let live = read;
  let reasons = judge(live);
  // A denial for the gas balance is never decided on a recent reading: it may predate a top-up.
  if (!live.gasBalanceFresh && reasons.some((r) => r.code === 'TX_POLICY_GAS_BALANCE_LOW')) {
    live = await readLiveFacts(deps, { appId: app.id, gw, userId: input.userId });
    reasons = judge(live);
  }
  const staticReasons = reasons.filter((r) => r.code !== 'TX_POLICY_DAILY_OPS_CAP_EXCEEDED');
  return { policy, reasons, staticReasons, feeStroops, gasWallet: live.gasWallet };
}
