// The activation transaction: how a user wallet comes to exist on-chain with its reserves sponsored by the app's
// funding wallet, all or nothing. Per wallet, in this order:
//   beginSponsoringFutureReserves(wallet)   source: the sponsor (funding wallet)
//   createAccount(wallet, 0)                source: the sponsor; the account's 2 base reserves go to the sponsor
//   changeTrust(asset) per configured asset source: the wallet; each line's base reserve goes to the sponsor
//   endSponsoringFutureReserves             source: the wallet (so the wallet must sign)
//   payment(wallet, starting balance)       source: the sponsor; only when a starting balance is configured
// The sponsor thus locks (2 + assets) x base reserve = 1 XLM + 0.5 XLM per asset (the spec's reserve rule) and the
// wallet holds only its spendable starting balance. The transaction source may be the sponsor itself or a channel
// account (which then only provides the sequence number), and several wallets' activations may share one transaction
// (at most 100 operations), which is how activations scale past one per ledger per funding wallet. Nobody in it pays
// the fee: the queue wraps it in a fee-bump paid by the app's gas wallet (GAS pays fees, FUNDING pays reserves).
import { Account, Asset, Operation, TransactionBuilder, type Transaction, type xdr } from '@stellar/stellar-sdk';
import { fromStroops, toStroops } from '../money/amounts';

/** A ledger's base reserve when none was read: 0.5 XLM on every public network. */
export const DEFAULT_BASE_RESERVE_STROOPS = 5_000_000n;

/** stellar-core's limit on operations per transaction. */
export const MAX_OPERATIONS_PER_TRANSACTION = 100;

export interface WalletActivation {
  /** The user wallet's G-address (the account to create). */
  publicKey: string;
  /** Issued assets as `CODE:ISSUER`: one sponsored trustline each. */
  assets: string[];
  /** Spendable XLM paid to the wallet, a decimal string ("0" for none). */
  startingBalanceXlm: string;
}

export interface ActivationTransactionInput {
  /** The transaction's source: the funding wallet itself, or a channel account. */
  source: { publicKey: string; sequence: string };
  /** The funding wallet: sponsors every reserve and pays every starting balance. */
  sponsor: string;
  activations: WalletActivation[];
  networkPassphrase: string;
  /** Fee per operation in stroops (the ledger's base fee, or more under surge pricing). */
  feePerOperationStroops: number;
  /** Unix seconds after which the transaction can no longer be applied, so an unconfirmed one can be given up safely. */
  validUntil: number;
}

/** Reserve the sponsor locks for one wallet: (2 + assets) x base reserve, i.e. 1 XLM + 0.5 XLM per asset. */
export function reserveStroops(assetCount: number, baseReserveStroops = DEFAULT_BASE_RESERVE_STROOPS): bigint {
  return BigInt(2 + assetCount) * baseReserveStroops;
}

/** The reserve rule as the API shows it: "1", "1.5", "2"... */
export function reservePerWalletXlm(assetCount: number, baseReserveStroops = DEFAULT_BASE_RESERVE_STROOPS): string {
  return fromStroops(reserveStroops(assetCount, baseReserveStroops));
}

export function operationCount(activation: WalletActivation): number {
  return 3 + activation.assets.length + (toStroops(activation.startingBalanceXlm) > 0n ? 1 : 0);
}

/** What the sponsor must have available for these activations: every reserve and every starting balance (no fee). */
export function sponsorCostStroops(activations: WalletActivation[], opts: { baseReserveStroops: bigint }): bigint {
  let total = 0n;
  for (const a of activations)
    total += reserveStroops(a.assets.length, opts.baseReserveStroops) + toStroops(a.startingBalanceXlm);
  return total;
}

/**
 * The fee the gas wallet pays for these activations in one transaction: the fee-bump's, one operation more than the
 * inner transaction's at the same rate (feeBump.ts).
 */
export function activationFeeStroops(activations: WalletActivation[], feePerOperationStroops: number): bigint {
  const ops = activations.reduce((n, a) => n + operationCount(a), 0);
  return BigInt((ops + 1) * feePerOperationStroops);
}

function assetOf(asset: string): Asset {
  const [code, issuer] = asset.split(':');
  if (!code || !issuer) throw new Error(`not CODE:ISSUER: ${asset}`);
  return new Asset(code, issuer);
}

/** The operations activating one wallet (see the file comment for the order and sources). */
export function activationOperations(activation: WalletActivation, sponsor: string): xdr.Operation[] {
  const wallet = activation.publicKey;
  const ops = [
    Operation.beginSponsoringFutureReserves({ sponsoredId: wallet, source: sponsor }),
    Operation.createAccount({ destination: wallet, startingBalance: '0', source: sponsor }),
    ...activation.assets.map((asset) => Operation.changeTrust({ asset: assetOf(asset), source: wallet })),
    Operation.endSponsoringFutureReserves({ source: wallet }),
  ];
  if (toStroops(activation.startingBalanceXlm) > 0n) {
    ops.push(
      Operation.payment({
        destination: wallet,
        asset: Asset.native(),
        amount: activation.startingBalanceXlm,
        source: sponsor,
      }),
    );
  }
  return ops;
}

/**
 * The unsigned activation transaction. It needs the signatures of the source, the sponsor (when another account)
 * and every activated wallet (their changeTrust and endSponsoring operations). Throws when the activations do not fit
 * in one transaction.
 */
export function buildActivationTransaction(input: ActivationTransactionInput): Transaction {
  const operations = input.activations.flatMap((a) => activationOperations(a, input.sponsor));
  if (operations.length === 0) throw new Error('nothing to activate');
  if (operations.length > MAX_OPERATIONS_PER_TRANSACTION) {
    throw new Error(
      `${operations.length} operations do not fit in one transaction (at most ${MAX_OPERATIONS_PER_TRANSACTION})`,
    );
  }
  const builder = new TransactionBuilder(new Account(input.source.publicKey, input.source.sequence), {
    fee: String(input.feePerOperationStroops),
    networkPassphrase: input.networkPassphrase,
    timebounds: { minTime: 0, maxTime: input.validUntil },
  });
  for (const op of operations) builder.addOperation(op);
  return builder.build();
}
