// TransactionResult / OperationResult construction, mirroring stellar-core's MutableTransactionResult: a result
// starts as success with every operation result initialised to its type's default success value; errors are then
// set at the innermost level (for fee-bumps: inside innerResultPair, the outer code becoming
// txFEE_BUMP_INNER_FAILED) or at the outer level (fee-bump envelope errors).

import { xdr } from '@stellar/stellar-sdk';
import { OP, RESULT_ARM, TX } from './codes';
import { toBase64 } from './encode';
import type { ParsedTx } from './envelope';

export type OpResult = xdr.OperationResultWire;

/** opINNER with the operation's own result code (and any payload of that arm, e.g. a path payment's `success`). */
export function opInner(type: number, code: number, payload?: Record<string, unknown>): OpResult {
  const arm = RESULT_ARM[type];
  if (!arm) throw new Error(`unknown operation type ${type}`);
  return { code: OP.INNER, tr: { type, [arm]: { code, ...payload } } } as unknown as OpResult;
}

/** An operation-level error (opBAD_AUTH, opNO_ACCOUNT, opNOT_SUPPORTED, opTOO_MANY_SUBENTRIES...). */
export function opError(code: number): OpResult {
  return { code } as OpResult;
}

export function opResultInnerCode(r: OpResult): number | undefined {
  if (r.code !== OP.INNER) return undefined;
  const tr = r.tr as unknown as Record<string, { code: number }>;
  const arm = RESULT_ARM[r.tr.type] as string;
  return tr[arm]?.code;
}

export function isOpSuccess(r: OpResult): boolean {
  return r.code === OP.INNER && opResultInnerCode(r) === 0;
}

const defaultBytes = new Map<number, Uint8Array>();

/**
 * The value core's result has before an operation runs: opINNER with the type's success arm default-constructed.
 * That is exactly the XDR decoding of zero bytes after the discriminants, so it is derived rather than hand-written.
 */
export function defaultOpSuccess(type: number): OpResult {
  let bytes = defaultBytes.get(type);
  if (!bytes) {
    for (let len = 8; len <= 1024 && !bytes; len += 4) {
      const candidate = new Uint8Array(len);
      new DataView(candidate.buffer).setInt32(4, type);
      if (xdr.OperationResult.schema.validateXdr(candidate)) bytes = candidate;
    }
    if (!bytes) throw new Error(`no default result for operation type ${type}`);
    defaultBytes.set(type, bytes);
  }
  return xdr.OperationResult.schema.decode(bytes);
}

export class TxResult {
  code: number;
  feeCharged: bigint;
  opResults: OpResult[];
  /** Present for fee-bumps: the inner transaction's hash, result code and fee. */
  inner?: { hash: Uint8Array; code: number; feeCharged: bigint };

  private constructor(code: number, feeCharged: bigint, opResults: OpResult[]) {
    this.code = code;
    this.feeCharged = feeCharged;
    this.opResults = opResults;
  }

  /** A success result with default operation results (core createSuccess). */
  static success(tx: ParsedTx, feeCharged: bigint, feeBump?: { innerFeeCharged: bigint }): TxResult {
    const ops = tx.operations.map((op) => defaultOpSuccess(op.body.type));
    if (!feeBump) return new TxResult(TX.SUCCESS, feeCharged, ops);
    const r = new TxResult(TX.FEE_BUMP_INNER_SUCCESS, feeCharged, ops);
    r.inner = { hash: tx.contentsHash, code: TX.SUCCESS, feeCharged: feeBump.innerFeeCharged };
    return r;
  }

  /** A bare error with no operation results and no fee (core createTxError, used by the queue's own checks). */
  static error(code: number, feeCharged = 0n): TxResult {
    return new TxResult(code, feeCharged, []);
  }

  get innermostCode(): number {
    return this.inner ? this.inner.code : this.code;
  }

  isSuccess(): boolean {
    return this.code === TX.SUCCESS || this.code === TX.FEE_BUMP_INNER_SUCCESS;
  }

  /** An error of the (inner) transaction itself. */
  setInnermostError(code: number): void {
    if (this.inner) {
      this.inner.code = code;
      this.code = TX.FEE_BUMP_INNER_FAILED;
    } else {
      this.code = code;
    }
  }

  /** An error of the outer envelope (for fee-bumps: replaces the inner result entirely). */
  setError(code: number): void {
    this.code = code;
    if (this.inner && code !== TX.FEE_BUMP_INNER_FAILED && code !== TX.FEE_BUMP_INNER_SUCCESS) this.inner = undefined;
  }

  setInsufficientFee(feeCharged: bigint): void {
    this.setError(TX.INSUFFICIENT_FEE);
    this.feeCharged = feeCharged;
  }

  toWire(): xdr.TransactionResultWire {
    let result: unknown;
    if (this.inner && (this.code === TX.FEE_BUMP_INNER_SUCCESS || this.code === TX.FEE_BUMP_INNER_FAILED)) {
      const innerCode = this.inner.code;
      const innerResult =
        innerCode === TX.SUCCESS || innerCode === TX.FAILED
          ? { code: innerCode, results: this.opResults }
          : { code: innerCode };
      result = {
        code: this.code,
        innerResultPair: {
          transactionHash: this.inner.hash,
          result: { feeCharged: this.inner.feeCharged, result: innerResult, ext: { v: 0 } },
        },
      };
    } else if (this.code === TX.SUCCESS || this.code === TX.FAILED) {
      result = { code: this.code, results: this.opResults };
    } else {
      result = { code: this.code };
    }
    return { feeCharged: this.feeCharged, result: result as xdr.TransactionResultResultWire, ext: { v: 0 } };
  }

  toXdr(): string {
    return toBase64(xdr.TransactionResult.schema.encode(this.toWire()));
  }
}
