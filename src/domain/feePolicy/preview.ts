// The Dashboard's dry run of the fee-bump policy: the decision a submission would meet now, on a transaction an
// operator describes (its operations' types and the assets they name, the fee) instead of one built and signed. The
// rules are evaluate.ts's, the live facts (gas balance, today's operations) liveFacts.ts's, as for a submission;
// nothing is stored, signed or sent.
import { StrKey } from '@stellar/stellar-sdk';
import type { Deps } from '../deps';
import type { App } from '../apps/store';
import { gatewayFor } from '../chain/gateways';
import { toStroops } from '../money/amounts';
import { evaluatePolicy, type PolicyFacts, type PolicyReason } from './evaluate';
import { readLiveFacts } from './liveFacts';
import { ASSETLESS_OPERATIONS, XLM_ONLY_OPERATIONS } from './operationAssets';
import type { FeePolicy } from './policy';

/** One operation as the contract describes it (FeePolicyDryRunOperation): its SDK type and what it names. */
export interface DescribedOperation {
  type: string;
  /** payment, changeTrust */
  asset?: string;
  /** path payments */
  sendAsset?: string;
  destAsset?: string;
  path?: string[];
  /** offers */
  selling?: string;
  buying?: string;
  /** accountMerge */
  destination?: string;
}

export interface DescribedTransaction {
  operations: DescribedOperation[];
  /** The fee-bump fee, decimal XLM. */
  feeXlm: string;
}

export interface PolicyPreview {
  /** Every rule the transaction breaks, in evaluatePolicy's order; empty: it would be sponsored. */
  reasons: PolicyReason[];
  gasBalanceStroops: bigint | undefined;
  opsToday: number;
}

/** The assets one described operation moves; undefined when it names none its type could move (judged undetermined). */
function assetsOf(op: DescribedOperation): string[] | undefined {
  if (XLM_ONLY_OPERATIONS.has(op.type)) return ['native'];
  if (ASSETLESS_OPERATIONS.has(op.type)) return [];
  const named = [op.asset, op.sendAsset, ...(op.path ?? []), op.destAsset, op.selling, op.buying].filter(
    (a): a is string => a !== undefined,
  );
  return named.length > 0 ? named : undefined;
}

/** The facts a described transaction gives the policy: those describeTransaction draws from a real one. */
export function describedTransactionFacts(
  tx: DescribedTransaction,
): Pick<
  PolicyFacts,
  | 'feeStroops'
  | 'movedAssets'
  | 'undeterminedAssetOperations'
  | 'operationTypes'
  | 'accountMergeDestinations'
  | 'opsCount'
> {
  const ops = tx.operations;
  return {
    feeStroops: toStroops(tx.feeXlm),
    movedAssets: [...new Set(ops.flatMap((op) => assetsOf(op) ?? []))],
    undeterminedAssetOperations: [...new Set(ops.filter((op) => assetsOf(op) === undefined).map((op) => op.type))],
    operationTypes: ops.map((op) => op.type),
    accountMergeDestinations: ops.flatMap((op) =>
      op.type === 'accountMerge' && op.destination !== undefined ? [op.destination] : [],
    ),
    opsCount: ops.length,
  };
}

/**
 * The field errors of a described transaction the contract's forms cannot catch (an address's checksum), named by
 * their path in the request body; empty when it is valid.
 */
export function describedTransactionFieldErrors(tx: DescribedTransaction): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  tx.operations.forEach((op, i) => {
    if (op.destination !== undefined && !StrKey.isValidEd25519PublicKey(op.destination))
      out[`transaction.operations.${i}.destination`] = [
        `${op.destination} is not a valid Stellar account id (G..., checksum)`,
      ];
  });
  return out;
}

/**
 * Judges a described transaction under `policy` (a draft or the saved one) against the app's state now: the gas
 * wallet's balance read from the chain (503 STELLAR_UNAVAILABLE when it cannot be reached) and, for `userId`, the
 * operations counted today. Reads only.
 */
export async function previewPolicy(
  deps: Pick<Deps, 'db' | 'clock' | 'stellar'>,
  input: { app: App; policy: FeePolicy; transaction: DescribedTransaction; userId?: string },
): Promise<PolicyPreview> {
  const { app, policy } = input;
  const live = await readLiveFacts(deps, {
    appId: app.id,
    gw: gatewayFor(deps, app.network),
    ...(input.userId !== undefined ? { userId: input.userId } : {}),
  });
  const reasons = evaluatePolicy(policy, {
    ...describedTransactionFacts(input.transaction),
    gasBalanceStroops: live.gasBalanceStroops,
    configuredAssets: app.assets,
    opsToday: live.opsToday,
  });
  return { reasons, gasBalanceStroops: live.gasBalanceStroops, opsToday: live.opsToday };
}
