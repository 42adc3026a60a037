// The fee-bump: how the app's gas wallet pays a transaction's fee so the user (or the funding wallet) pays none. The
// inner transaction keeps its own signatures; the gas wallet signs only the outer envelope, whose fee it pays.
//
// Fee (product rule, and the minimum stellar-core accepts for a bump of the inner rate): the inner transaction's fee
// rate per operation, ceil(inner fee / ops), times (ops + 1): a fee-bump counts as one operation more.
import { TransactionBuilder, type FeeBumpTransaction, type Transaction } from '@stellar/stellar-sdk';
import type { Deps } from '../deps';
import type { AuditActor } from '../audit/auditLog';
import { withWalletKeypair } from '../wallets/custody';
import type { WalletRecord } from '../wallets/store';
import { networkFeeReason, type PolicyReason } from '../feePolicy/evaluate';
import type { FeePolicy } from '../feePolicy/policy';
import { signTransaction } from '../../infra/stellar/transactionHash';

/** ceil(inner fee / ops) x (ops + 1) stroops. */
export function feeBumpFeeStroops(innerFeeStroops: bigint, innerOps: number): bigint {
  const ops = BigInt(Math.max(1, innerOps));
  const rate = (innerFeeStroops + ops - 1n) / ops;
  return rate * (ops + 1n);
}

/** The fee-bump fee of an inner transaction, as its envelope declares it. */
export function feeBumpFeeOf(inner: Transaction): bigint {
  return feeBumpFeeStroops(BigInt(inner.fee), inner.operations.length);
}

/**
 * How often one submission raises its fee for a congested network: each refusal names the fee that would get in now
 * (a first raise may only beat the rate the network evicted last, the next its queue's lowest); a network whose price
 * moves past it again is left to the caller's retry.
 */
export const MAX_FEE_RAISES = 2;

/**
 * The fee-bump fee that pays at least `requiredFeeStroops` (what a congested network asked for): the rate per
 * operation rounded up, times the fee-bump's operations (the inner ones + 1), never below the product's fee.
 */
export function raisedFeeBumpFeeStroops(inner: Transaction, requiredFeeStroops: bigint): bigint {
  const ops = BigInt(inner.operations.length + 1);
  const raised = ((requiredFeeStroops + ops - 1n) / ops) * ops;
  const product = feeBumpFeeOf(inner);
  return raised > product ? raised : product;
}

/**
 * A congested network's asked-for fee judged against the app's policy, in one place for every sender (a request's
 * submission, the confirmation worker's turn, an activation batch): the fee-bump fee that pays it
 * (raisedFeeBumpFeeStroops), and the policy's refusal when that fee is above its maximum.
 */
export function raisedFeeUnderPolicy(
  policy: FeePolicy,
  inner: Transaction,
  requiredFeeStroops: bigint,
): { feeStroops: bigint; refusal?: PolicyReason } {
  const feeStroops = raisedFeeBumpFeeStroops(inner, requiredFeeStroops);
  return feeStroops > policy.maxFeeStroops
    ? { feeStroops, refusal: networkFeeReason(policy, feeStroops) }
    : { feeStroops };
}

/**
 * `inner` wrapped in a fee-bump paid by `gasWallet`, not signed yet: at the product's fee, or at `feeStroops` (a fee
 * raised for a congested network: raisedFeeBumpFeeStroops).
 */
export function unsignedFeeBump(
  gasWallet: Pick<WalletRecord, 'publicKey'>,
  inner: Transaction,
  networkPassphrase: string,
  feeStroops: bigint = feeBumpFeeOf(inner),
): FeeBumpTransaction {
  const rate = feeStroops / BigInt(inner.operations.length + 1);
  return TransactionBuilder.buildFeeBumpTransaction(gasWallet.publicKey, rate.toString(), inner, networkPassphrase);
}

/**
 * Wraps `inner` in a fee-bump paid by `gasWallet` and signs it with the gas wallet's key (the decryption audited under
 * `purpose`, `tx.fee_bump` by default). Callers check the fee-bump policy first: signing here is the commitment.
 */
export async function sponsorFee(
  deps: Pick<Deps, 'db' | 'kms' | 'clock'>,
  input: {
    gasWallet: WalletRecord;
    inner: Transaction;
    networkPassphrase: string;
    actor: AuditActor;
    ip?: string;
    purpose?: string;
    /** A fee above the product's (raisedFeeBumpFeeStroops), when a congested network asks for one. */
    feeStroops?: bigint;
  },
): Promise<FeeBumpTransaction> {
  const bump = unsignedFeeBump(input.gasWallet, input.inner, input.networkPassphrase, input.feeStroops);
  await withWalletKeypair(
    deps,
    {
      walletId: input.gasWallet.id,
      purpose: input.purpose ?? 'tx.fee_bump',
      actor: input.actor,
      ...(input.ip !== undefined ? { ip: input.ip } : {}),
    },
    (kp) => {
      signTransaction(bump, kp);
    },
  );
  return bump;
}
