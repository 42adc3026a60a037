// The app's fee-bump policy (FeePolicy.yaml): what the gas wallet agrees to sponsor. Stored in `fee_policies`, one row
// per app that changed it; an app without a row has the defaults. Amounts are kept as bigint stroops here and written
// as decimal XLM strings only at the edge (feePolicyView), so no rule ever compares a float.
import { StrKey } from '@stellar/stellar-sdk';
import type { Knex } from 'knex';
import { fromStroops, STROOPS_PER_XLM, toStroops } from '../money/amounts';
import { recordAudit, type AuditActor } from '../audit/auditLog';
import { onlyRow, preparedQuery } from '../../infra/db/database';

export interface FeePolicy {
  /** The largest fee-bump fee the gas wallet pays for one transaction. */
  maxFeeStroops: bigint;
  /** Most sponsored operations per user per UTC day; null: no cap. */
  dailyOpsCap: number | null;
  /** `native` or `CODE:ISSUER`; empty: the app's configured assets and XLM. */
  approvedAssets: string[];
  /** Sponsorship pauses while the gas wallet holds this much or less. */
  gasMinimumStroops: bigint;
  allowAccountMerge: boolean;
  /** Where an allowed accountMerge may send the account; empty: anywhere. Kept but unused while merges are refused. */
  accountMergeDestinations: string[];
}

export const DEFAULT_FEE_POLICY: FeePolicy = Object.freeze({
  maxFeeStroops: 10n * STROOPS_PER_XLM,
  dailyOpsCap: null,
  approvedAssets: Object.freeze([]) as unknown as string[],
  gasMinimumStroops: 10n * STROOPS_PER_XLM,
  allowAccountMerge: false,
  accountMergeDestinations: Object.freeze([]) as unknown as string[],
});

/** The contract's bounds on `maxFeePerTxXlm` (0.01 to 100 XLM, both allowed). */
export const MIN_MAX_FEE_STROOPS = STROOPS_PER_XLM / 100n;
export const MAX_MAX_FEE_STROOPS = 100n * STROOPS_PER_XLM;
/** A ceiling on `gasMinimumBalanceXlm`: above the XLM supply, and far inside the int64 column. */
export const MAX_GAS_MINIMUM_STROOPS = 1_000_000_000n * STROOPS_PER_XLM;

/** The policy as the contract writes it (FeePolicy.yaml): XLM as decimal strings. */
export interface FeePolicyView {
  maxFeePerTxXlm: string;
  dailyOpsCap: number | null;
  approvedAssets: string[];
  gasMinimumBalanceXlm: string;
  allowAccountMerge: boolean;
  accountMergeDestinations: string[];
}

/** A `fee_policies` row (migration 0016): bigint as decimal text, text[] as arrays. */
interface FeePolicyRow {
  app_id: string;
  max_fee_stroops: string;
  daily_ops_cap: number | null;
  approved_assets: string[] | null;
  gas_minimum_stroops: string;
  allow_account_merge: boolean;
  account_merge_destinations: string[] | null;
}

function toPolicy(row: FeePolicyRow): FeePolicy {
  return {
    maxFeeStroops: BigInt(row.max_fee_stroops),
    dailyOpsCap: row.daily_ops_cap,
    approvedAssets: row.approved_assets ?? [],
    gasMinimumStroops: BigInt(row.gas_minimum_stroops),
    allowAccountMerge: row.allow_account_merge,
    accountMergeDestinations: row.account_merge_destinations ?? [],
  };
}

/** The app's policy: its stored row, or the defaults when it never changed it. */
export async function loadFeePolicy(db: Knex, appId: string): Promise<FeePolicy> {
  const [row] = (await preparedQuery<FeePolicyRow>(db, 'fee-policy-of-app', FEE_POLICY_SQL, [appId])).rows;
  return row ? toPolicy(row) : { ...DEFAULT_FEE_POLICY, approvedAssets: [], accountMergeDestinations: [] };
}

/** A prepared statement: every sponsored transaction reads its app's policy (database.ts preparedQuery). */
const FEE_POLICY_SQL = `select app_id, max_fee_stroops, daily_ops_cap, approved_assets, gas_minimum_stroops, allow_account_merge,
    account_merge_destinations
  from fee_policies where app_id = $1`;

/**
 * Replaces the app's policy and records who did it (`fee_policy.updated`) in one database transaction, so the audit
 * entry exists exactly when the change does. Returns the policy as stored.
 */
export async function saveFeePolicy(
  db: Knex,
  input: { appId: string; policy: FeePolicy; actor: AuditActor; at: Date; ip?: string },
): Promise<FeePolicy> {
  const { appId, policy, at } = input;
  return db.transaction(async (trx) => {
    const values = {
      max_fee_stroops: policy.maxFeeStroops.toString(),
      daily_ops_cap: policy.dailyOpsCap,
      approved_assets: policy.approvedAssets,
      gas_minimum_stroops: policy.gasMinimumStroops.toString(),
      allow_account_merge: policy.allowAccountMerge,
      account_merge_destinations: policy.accountMergeDestinations,
      updated_at: at,
    };
    const rows = await trx('fee_policies')
      .insert({ app_id: appId, ...values })
      .onConflict('app_id')
      .merge(values)
      .returning<FeePolicyRow[]>('*');
    const view = feePolicyView(policy);
    await recordAudit(trx, {
      appId,
      action: 'fee_policy.updated',
      actor: input.actor,
      ip: input.ip,
      // The new settings, flattened (audit details are scalars), so an investigation sees what was allowed when.
      details: {
        maxFeePerTxXlm: view.maxFeePerTxXlm,
        dailyOpsCap: view.dailyOpsCap,
        approvedAssets: view.approvedAssets.join(','),
        gasMinimumBalanceXlm: view.gasMinimumBalanceXlm,
        allowAccountMerge: view.allowAccountMerge,
        accountMergeDestinations: view.accountMergeDestinations.join(','),
      },
      at,
    });
    return toPolicy(onlyRow(rows, 'upsert into fee_policies'));
  });
}

export function feePolicyView(p: FeePolicy): FeePolicyView {
  return {
    maxFeePerTxXlm: fromStroops(p.maxFeeStroops),
    dailyOpsCap: p.dailyOpsCap,
    approvedAssets: [...p.approvedAssets],
    gasMinimumBalanceXlm: fromStroops(p.gasMinimumStroops),
    allowAccountMerge: p.allowAccountMerge,
    accountMergeDestinations: [...p.accountMergeDestinations],
  };
}

/**
 * The field errors of a policy an operator sends (the router already checked the contract's forms and ranges);
 * empty when it is valid. `configuredAssets` are the app's issued assets (AppSettings.assets).
 */
export function feePolicyFieldErrors(
  input: FeePolicyView,
  configuredAssets: readonly string[],
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const add = (field: string, message: string) => (out[field] ??= []).push(message);
  const maxFee = toStroops(input.maxFeePerTxXlm);
  if (maxFee < MIN_MAX_FEE_STROOPS || maxFee > MAX_MAX_FEE_STROOPS)
    add('maxFeePerTxXlm', 'must be between 0.01 and 100');
  if (toStroops(input.gasMinimumBalanceXlm) > MAX_GAS_MINIMUM_STROOPS)
    add('gasMinimumBalanceXlm', `must be at most ${fromStroops(MAX_GAS_MINIMUM_STROOPS)}`);
  const configured = new Set(configuredAssets);
  for (const asset of input.approvedAssets) {
    if (asset !== 'native' && !configured.has(asset))
      add('approvedAssets', `${asset} is neither native nor one of the app's configured assets`);
  }
  // The contract's pattern checks the form only; a mistyped address (bad checksum) could never be a merge target.
  for (const destination of input.accountMergeDestinations) {
    if (!StrKey.isValidEd25519PublicKey(destination))
      add('accountMergeDestinations', `${destination} is not a valid Stellar account id (G..., checksum)`);
  }
  return out;
}

/** The policy an operator sent, in stroops; call after feePolicyFieldErrors found nothing. */
export function feePolicyFromView(input: FeePolicyView): FeePolicy {
  return {
    maxFeeStroops: toStroops(input.maxFeePerTxXlm),
    dailyOpsCap: input.dailyOpsCap,
    approvedAssets: [...input.approvedAssets],
    gasMinimumStroops: toStroops(input.gasMinimumBalanceXlm),
    allowAccountMerge: input.allowAccountMerge,
    accountMergeDestinations: [...input.accountMergeDestinations],
  };
}
