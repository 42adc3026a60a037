// Stellar result codes in the spelling users know. RPC answers base64 XDR, which the SDK decodes to names such as
// `txInsufficientBalance` or `createAccountAlreadyExist`; Horizon's `extras.result_codes` (and every Stellar guide)
// spell them `tx_insufficient_balance`, `op_already_exists`. The rule is mechanical (drop the operation's prefix,
// snake-case the rest) apart from the few names Horizon spells its own way, listed here.
import { xdr } from '@stellar/stellar-sdk';

export interface ResultCodes {
  /** e.g. `tx_failed`, `tx_bad_seq`; for a fee-bump whose inner transaction failed, the inner transaction's code. */
  transaction: string;
  /** One per operation, e.g. `op_success`, `op_underfunded`, `op_low_reserve`; empty when no operation ran. */
  operations: string[];
}

const TX_EXCEPTIONS: Record<string, string> = {
  txNoAccount: 'tx_no_source_account',
  txBadMinSeqAgeOrGap: 'tx_bad_minseq_age_or_gap',
};

const OP_EXCEPTIONS: Record<string, string> = {
  opNoAccount: 'op_no_source_account',
};

/** Operation-specific suffixes Horizon does not spell mechanically. */
const OP_SUFFIX_EXCEPTIONS: Record<string, string> = {
  AlreadyExist: 'op_already_exists',
  OverSendmax: 'op_over_source_max',
  OfferCrossSelf: 'op_cross_self',
  UnderDestmin: 'op_under_dest_min',
};

/** Operation type names (`createAccount`, `manageSellOffer`...), longest first, to strip from result names. */
const OPERATION_PREFIXES = [...xdr.OperationType.schema.nameByValue.values()].sort((a, b) => b.length - a.length);

function snake(camel: string): string {
  return camel.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

/** `txInsufficientBalance` -> `tx_insufficient_balance`. */
export function transactionCodeName(sdkName: string): string {
  return TX_EXCEPTIONS[sdkName] ?? snake(sdkName);
}

/** `createAccountAlreadyExist` -> `op_already_exists`; `paymentUnderfunded` -> `op_underfunded`; `opBadAuth` -> `op_bad_auth`. */
export function operationCodeName(sdkName: string): string {
  if (OP_EXCEPTIONS[sdkName]) return OP_EXCEPTIONS[sdkName];
  if (sdkName.startsWith('op')) return snake(sdkName);
  const prefix = OPERATION_PREFIXES.find((p) => sdkName.startsWith(p) && /[A-Z]/.test(sdkName.charAt(p.length)));
  const suffix = prefix ? sdkName.slice(prefix.length) : sdkName;
  return OP_SUFFIX_EXCEPTIONS[suffix] ?? `op_${snake(suffix.charAt(0).toLowerCase() + suffix.slice(1))}`;
}

function operationResults(results: xdr.OperationResult[]): string[] {
  return results.map((op) =>
    operationCodeName(op.type === 'opInner' ? (op.tr.value as { type: string }).type : op.type),
  );
}

/** The codes of a TransactionResult (from sendTransaction's errorResult or getTransaction's resultXdr). */
export function resultCodes(result: xdr.TransactionResult): ResultCodes {
  const r = result.result;
  if (r.type === 'txFeeBumpInnerFailed' || r.type === 'txFeeBumpInnerSuccess') {
    const inner = r.innerResultPair.result.result;
    return {
      transaction: transactionCodeName(inner.type),
      operations: inner.type === 'txSuccess' || inner.type === 'txFailed' ? operationResults(inner.results) : [],
    };
  }
  return {
    transaction: transactionCodeName(r.type),
    operations: r.type === 'txSuccess' || r.type === 'txFailed' ? operationResults(r.results) : [],
  };
}

/**
 * The full fee a transaction refused for its fee would need (tx_insufficient_fee at submission): stellar-core puts it
 * in the result's feeCharged when its queue is full and the bid does not beat what it would evict. Undefined for any
 * other refusal, or when the result names no fee.
 */
export function requiredFeeOf(result: xdr.TransactionResult | undefined, codes: ResultCodes): bigint | undefined {
  if (!result || codes.transaction !== 'tx_insufficient_fee') return undefined;
  const fee = result.feeCharged;
  return fee > 0n ? fee : undefined;
}
