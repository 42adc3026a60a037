// What the custodial signer agrees to sign for a user's wallet. The wallet's key signs only transactions of that
// wallet (source and every operation source), and never one that would take the wallet out of the service's and the
// user's hands. The fee-bump policy (accountMerge, assets, caps) is a separate, later decision at submission.
//
// Refused operations (TX_UNSUPPORTED_OPERATION):
// - setOptions adding/removing signers or changing the master weight or thresholds: hands over (or gives up) control
//   of a custodial wallet.
// - bumpSequence: the service manages the custodial account's sequence; a bump to INT64_MAX would freeze the wallet
//   for good (no later transaction can have a higher sequence).
// - invokeHostFunction, extendFootprintTtl, restoreFootprint: Soroban calls. A wallet signing as the source account
//   authorizes every contract call the transaction makes, which would bypass the app's Soroban auth policy; contract
//   calls are authorized entry by entry through sign-auth-entry.
// - inflation: retired by the network.
import {
  FeeBumpTransaction,
  Keypair,
  TransactionBuilder,
  type OperationRecord,
  type Transaction,
} from '@stellar/stellar-sdk';
import { AppError } from '../errors';
import { accountOf } from './describe';

const NEVER_SIGNED: Record<string, string> = {
  bumpSequence: 'bumpSequence is not signed for custodial wallets: the service manages their sequence numbers',
  invokeHostFunction:
    'Soroban calls are not signed as whole transactions for custodial wallets; authorize them with sign-auth-entry',
  extendFootprintTtl: 'Soroban operations are not signed for custodial wallets',
  restoreFootprint: 'Soroban operations are not signed for custodial wallets',
  inflation: 'inflation is retired by the network',
};

/** Why a setOptions would hand over control of the wallet; undefined when it would not. */
function controlChange(op: OperationRecord): string | undefined {
  if (op.type !== 'setOptions') return undefined;
  if (op.signer !== undefined) return 'setOptions changing signers is not signed for custodial wallets';
  if (op.masterWeight !== undefined)
    return 'setOptions changing the master key weight is not signed for custodial wallets';
  if (op.lowThreshold !== undefined || op.medThreshold !== undefined || op.highThreshold !== undefined) {
    return 'setOptions changing thresholds is not signed for custodial wallets';
  }
  return undefined;
}

/**
 * Throws unless the wallet may sign `tx`: 400 TX_INVALID_SIGNED_XDR when the transaction's source or an operation's
 * source is another account (an `allowedCosigners` account may only be the source of a beginSponsoringFutureReserves
 * for the wallet: the funding wallet sponsoring a trustline the service built); 422 TX_UNSUPPORTED_OPERATION for the
 * operations listed above. accountMerge is left to the fee-bump policy.
 */
export function assertUserTransaction(
  tx: Transaction,
  walletPublicKey: string,
  opts: { allowedCosigners?: string[] } = {},
): void {
  const cosigners = new Set(opts.allowedCosigners ?? []);
  if (accountOf(tx.source) !== walletPublicKey) {
    throw new AppError('TX_INVALID_SIGNED_XDR', {
      message: "The transaction's source is not the session user's wallet",
    });
  }
  tx.operations.forEach((op, i) => {
    const source = op.source === undefined ? walletPublicKey : accountOf(op.source);
    if (source === walletPublicKey) return;
    const label = `Operation ${i + 1} (${op.type})`;
    if (!cosigners.has(source)) {
      throw new AppError('TX_INVALID_SIGNED_XDR', {
        message: `${label} has the source ${source}, not the session user's wallet`,
      });
    }
    if (op.type !== 'beginSponsoringFutureReserves' || accountOf(op.sponsoredId) !== walletPublicKey) {
      throw new AppError('TX_INVALID_SIGNED_XDR', {
        message: `${label}: the sponsoring account may only sponsor the wallet's reserves`,
      });
    }
  });
  for (const op of tx.operations) {
    const why = controlChange(op) ?? NEVER_SIGNED[op.type];
    if (why) throw new AppError('TX_UNSUPPORTED_OPERATION', { message: why });
  }
}

/**
 * The inner transaction of a base64 TransactionEnvelope. 400 TX_INVALID_SIGNED_XDR when it does not decode, has no
 * operation, or is a fee-bump (the service wraps transactions in its own fee-bump; send the inner one).
 */
export function parseInnerTransaction(xdrBase64: string, networkPassphrase: string): Transaction {
  let parsed: Transaction | FeeBumpTransaction;
  try {
    parsed = TransactionBuilder.fromXDR(xdrBase64.trim(), networkPassphrase);
  } catch (err) {
    throw new AppError('TX_INVALID_SIGNED_XDR', {
      message: 'The XDR is not a Stellar transaction envelope (base64)',
      cause: err,
    });
  }
  if (parsed instanceof FeeBumpTransaction) {
    throw new AppError('TX_INVALID_SIGNED_XDR', {
      message: 'The XDR is a fee-bump envelope; send the inner transaction: the service wraps it in its own fee-bump',
    });
  }
  if (parsed.operations.length === 0)
    throw new AppError('TX_INVALID_SIGNED_XDR', { message: 'The transaction has no operations' });
  return parsed;
}

/** Whether `tx` carries a valid ed25519 signature of `publicKey` over its hash (for its network). */
export function isSignedBy(tx: Transaction, publicKey: string): boolean {
  let keypair: Keypair;
  try {
    keypair = Keypair.fromPublicKey(publicKey);
  } catch {
    return false;
  }
  const hint = keypair.signatureHint();
  const hash = tx.hash();
  return tx.signatures.some((s) => {
    if (!Buffer.from(s.hint.toBytes()).equals(Buffer.from(hint))) return false;
    try {
      return keypair.verify(hash, s.signature);
    } catch {
      return false; // a signature of the wrong length is no signature
    }
  });
}
