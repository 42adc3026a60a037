// The fee-bump policy's decision on one inner transaction, pure: the caller gathers the facts (the parsed
// transaction, the fee-bump fee, the gas wallet's balance, the user's operations today) and this says which rules
// fail. Every failing rule is reported, not just the first, so a dry run explains everything at once; a submission
// answers the first reason's error (policyError).
import { fromStroops } from '../money/amounts';
import { AppError } from '../errors';
import { secondsUntilNextUtcMidnight } from '../limits/dailyQuota';
import type { FeePolicy } from './policy';

export type PolicyCode =
  | 'TX_POLICY_MAX_FEE_EXCEEDED'
  | 'TX_POLICY_DAILY_OPS_CAP_EXCEEDED'
  | 'TX_POLICY_ASSET_NOT_APPROVED'
  | 'TX_POLICY_GAS_BALANCE_LOW'
  | 'TX_POLICY_OPERATION_NOT_ALLOWED';

export interface PolicyReason {
  code: PolicyCode;
  message: string;
}

export interface PolicyFacts {
  /** The fee-bump fee. */
  feeStroops: bigint;
  /** `native` | `CODE:ISSUER`: every asset a payment or path payment sends, receives or passes through, and changeTrust's asset. */
  movedAssets: string[];
  /** Operations whose assets cannot be determined from the transaction: always denied (fail closed). */
  undeterminedAssetOperations?: string[];
  /** Every operation type of the inner transaction, SDK names (`payment`, `accountMerge`...). */
  operationTypes: string[];
  accountMergeDestinations: string[];
  /** The gas wallet's XLM balance; undefined when its account does not exist. */
  gasBalanceStroops: bigint | undefined;
  /** The app's configured issued assets (approvedAssets empty: these and native are approved). */
  configuredAssets: string[];
  /** The user's sponsored operations already counted today (the dry-run preview of the daily cap). */
  opsToday: number;
  /** This transaction's operations. */
  opsCount: number;
}

const xlm = (stroops: bigint) => `${fromStroops(stroops)} XLM`;
const unique = (values: string[]) => [...new Set(values)];

/** accountMerge is refused unless allowed, then only to a listed destination (an empty list: any). */
function operationRule(policy: FeePolicy, facts: PolicyFacts): PolicyReason | undefined {
  if (!facts.operationTypes.includes('accountMerge')) return undefined;
  if (!policy.allowAccountMerge) {
    return { code: 'TX_POLICY_OPERATION_NOT_ALLOWED', message: "accountMerge is not allowed by the app's fee policy" };
  }
  if (policy.accountMergeDestinations.length === 0) return undefined;
  const allowed = new Set(policy.accountMergeDestinations);
  const refused = unique(facts.accountMergeDestinations.filter((d) => !allowed.has(d)));
  if (refused.length === 0) return undefined;
  return {
    code: 'TX_POLICY_OPERATION_NOT_ALLOWED',
    message: `accountMerge to ${refused.join(', ')} is not allowed by the app's fee policy (not an approved destination)`,
  };
}

/** Every moved asset must be approved; an empty approved list means the configured assets and XLM. */
function assetRule(policy: FeePolicy, facts: PolicyFacts): PolicyReason | undefined {
  const undetermined = facts.undeterminedAssetOperations ?? [];
  if (undetermined.length > 0) {
    return {
      code: 'TX_POLICY_ASSET_NOT_APPROVED',
      message: `The assets moved by ${undetermined.join(', ')} cannot be determined from the transaction, so the app's fee policy cannot approve them`,
    };
  }
  const approved = new Set(
    policy.approvedAssets.length > 0 ? policy.approvedAssets : ['native', ...facts.configuredAssets],
  );
  const refused = unique(facts.movedAssets.filter((a) => !approved.has(a)));
  if (refused.length === 0) return undefined;
  const names = refused.map((a) => (a === 'native' ? 'XLM (native)' : a));
  return {
    code: 'TX_POLICY_ASSET_NOT_APPROVED',
    message: `The transaction moves ${names.join(', ')}, which the app has not approved for sponsored transactions`,
  };
}

/** The fee must not exceed the maximum (equal passes). */
function feeRule(policy: FeePolicy, facts: PolicyFacts): PolicyReason | undefined {
  if (facts.feeStroops <= policy.maxFeeStroops) return undefined;
  return {
    code: 'TX_POLICY_MAX_FEE_EXCEEDED',
    message: `The fee-bump fee ${xlm(facts.feeStroops)} exceeds the app's maximum of ${xlm(policy.maxFeeStroops)}`,
  };
}

/**
 * The network needs more than the policy allows: a congested network (its transaction queue full) refused the fee-bump
 * and said what fee would get in, and that fee is above the app's maximum. Nothing was sent and nothing charged.
 */
export function networkFeeReason(policy: FeePolicy, requiredFeeStroops: bigint): PolicyReason {
  return {
    code: 'TX_POLICY_MAX_FEE_EXCEEDED',
    message:
      `The network is congested: it needs a fee of ${xlm(requiredFeeStroops)} to take this transaction now, above ` +
      `the app's maximum of ${xlm(policy.maxFeeStroops)}; nothing was submitted. Retry later, or raise the maximum`,
  };
}

/**
 * The daily-cap denial, also for a submission whose reservation (reserveDailyOps) was refused: the limit is reached,
 * or this transaction's operations would go past it.
 */
export function dailyCapReason(cap: number, opsToday: number, opsCount: number): PolicyReason {
  const message =
    opsToday >= cap
      ? `The daily limit of ${cap} operations is reached; it resets at 00:00 UTC`
      : `The transaction's ${opsCount} operations would exceed the daily limit of ${cap} operations (${opsToday} used today); it resets at 00:00 UTC`;
  return { code: 'TX_POLICY_DAILY_OPS_CAP_EXCEEDED', message };
}

/** Today's operations with this transaction's must not exceed the cap (reaching it exactly passes). */
function dailyCapRule(policy: FeePolicy, facts: PolicyFacts): PolicyReason | undefined {
  if (policy.dailyOpsCap === null || facts.opsToday + facts.opsCount <= policy.dailyOpsCap) return undefined;
  return dailyCapReason(policy.dailyOpsCap, facts.opsToday, facts.opsCount);
}

/** The gas wallet must hold more than the minimum (equal fails); a gas account that does not exist holds nothing. */
function gasRule(policy: FeePolicy, facts: PolicyFacts): PolicyReason | undefined {
  if (facts.gasBalanceStroops !== undefined && facts.gasBalanceStroops > policy.gasMinimumStroops) return undefined;
  const holds = facts.gasBalanceStroops === undefined ? 'is not funded' : `holds ${xlm(facts.gasBalanceStroops)}`;
  return {
    code: 'TX_POLICY_GAS_BALANCE_LOW',
    message: `Sponsorship is paused; the app's gas wallet ${holds}, at or below its minimum of ${xlm(policy.gasMinimumStroops)}`,
  };
}

/** In the order reasons are reported: what the transaction does, what it moves, what it costs, then the service's state. */
const RULES = [operationRule, assetRule, feeRule, dailyCapRule, gasRule];

/** Every rule the transaction breaks, in a fixed order (operation, asset, fee, daily cap, gas); empty: sponsor it. */
export function evaluatePolicy(policy: FeePolicy, facts: PolicyFacts): PolicyReason[] {
  return RULES.map((rule) => rule(policy, facts)).filter((r): r is PolicyReason => r !== undefined);
}

/** Seconds a client waits before sponsorship may resume after the gas wallet ran low (an operator must top it up). */
export const GAS_LOW_RETRY_AFTER_SECONDS = 60;

/** The error a refused submission answers; the daily cap and a low gas wallet say when to retry (Retry-After). */
export function policyError(reason: PolicyReason, now: Date): AppError {
  const headers: Record<string, string> = {};
  if (reason.code === 'TX_POLICY_DAILY_OPS_CAP_EXCEEDED')
    headers['Retry-After'] = String(secondsUntilNextUtcMidnight(now));
  if (reason.code === 'TX_POLICY_GAS_BALANCE_LOW') headers['Retry-After'] = String(GAS_LOW_RETRY_AFTER_SECONDS);
  return new AppError(reason.code, { message: reason.message, headers });
}
