// Transaction validity, in stellar-core's order (TransactionFrame::commonValidPreSeqNum / commonValid /
// checkValidWithOptionallyChargedFee and FeeBumpTransactionFrame::checkValidImpl):
//   txNOT_SUPPORTED (v0 envelope), txMALFORMED (extra signers, Soroban consistency), txMISSING_OPERATION,
//   txMALFORMED / txSOROBAN_INVALID (Soroban data: presence, resource fee, footprint, declared resources),
//   txTOO_EARLY, txTOO_LATE, txINSUFFICIENT_FEE, txNO_ACCOUNT, txBAD_SEQ, txBAD_MIN_SEQ_AGE_OR_GAP, txBAD_AUTH,
//   txINSUFFICIENT_BALANCE, then per operation (opNOT_SUPPORTED, opBAD_AUTH / opNO_ACCOUNT, malformed -> txFAILED),
//   then txBAD_AUTH_EXTRA.
// The same functions run at submission (against the last closed ledger) and at apply (against the ledger being
// closed, with `applying` set: the fee is already taken, signatures of operations are checked up front).

import { xdr } from '@stellar/stellar-sdk';
import { INT64_MAX, OP, SOROBAN_OP_TYPES, TX } from './codes';
import { accountIdFromMuxed, signerKeyFromWire } from './encode';
import type { ParsedEnvelope, ParsedTx } from './envelope';
import { type OpResult, TxResult, opError } from './results';
import { type HeaderView, availableBalance, startingSequenceNumber } from './reserves';
import { SignatureChecker, accountSigners, masterKeyOnly } from './signatures';
import { type AccountRecord, type StateReader, accountKey } from './state';
import { operationHandler } from './operations';
import { TX_MAX_INSTRUCTIONS, isDiskReadKey, nonRefundableResourceFee } from './sorobanFees';

export interface ValidationEnv {
  state: StateReader;
  header: HeaderView;
}

/** How far validation got (core ValidationType): decides whether the sequence number is consumed at apply. */
export enum Validity {
  Invalid = 0,
  InvalidUpdateSeqNum = 1,
  InvalidPostAuth = 2,
  MaybeValid = 3,
}

export interface TimeOptions {
  /** Added to the close time for txTOO_EARLY (0 at submission and apply). */
  lowerBoundOffset: number;
  /** Added to the close time for txTOO_LATE (the expected time to the next close at submission, 0 at apply). */
  upperBoundOffset: number;
  /** Ledger the transaction is validated for (the next one at submission). */
  validationLedgerSeq?: number;
}

export function getAccountRecord(state: StateReader, id: string): AccountRecord | undefined {
  const r = state.get(accountKey(id));
  return r && r.kind === 'account' ? r : undefined;
}

export function minInclusionFee(header: HeaderView, ops: number): bigint {
  return BigInt(header.baseFee) * BigInt(Math.max(1, ops));
}

function commonValidPreSeqNum(
  tx: ParsedTx,
  env: ValidationEnv,
  chargeFee: boolean,
  time: TimeOptions,
  res: TxResult,
): AccountRecord | undefined {
  const { header } = env;
  if (tx.envelopeType === 0) {
    res.setInnermostError(TX.NOT_SUPPORTED);
    return undefined;
  }
  const [first, second] = tx.extraSigners;
  if (first && second && JSON.stringify(signerKeyFromWire(first)) === JSON.stringify(signerKeyFromWire(second))) {
    res.setInnermostError(TX.MALFORMED);
    return undefined;
  }
  if (tx.extraSigners.some((s) => s.type === 3 && s.ed25519SignedPayload.payload.length === 0)) {
    res.setInnermostError(TX.MALFORMED);
    return undefined;
  }
  if (tx.operations.length === 0) {
    res.setInnermostError(TX.MISSING_OPERATION);
    return undefined;
  }
  const sorobanOps = tx.operations.filter((op) => SOROBAN_OP_TYPES.has(op.body.type)).length;
  if ((sorobanOps > 0 && tx.operations.length !== 1) || (sorobanOps === 0 && tx.extV !== 0)) {
    res.setInnermostError(TX.MALFORMED);
    return undefined;
  }
  const sorobanFailure = sorobanOps > 0 ? sorobanDataValidity(tx) : undefined;
  if (sorobanFailure !== undefined) {
    res.setInnermostError(sorobanFailure);
    return undefined;
  }

  const ledgerSeq = time.validationLedgerSeq ?? header.ledgerSeq;
  const closeTime = BigInt(header.closeTime);
  const tb = tx.timeBounds;
  const lb = tx.ledgerBounds;
  if (
    (tb && tb.minTime !== 0n && tb.minTime > closeTime + BigInt(time.lowerBoundOffset)) ||
    (lb && lb.minLedger > ledgerSeq)
  ) {
    res.setInnermostError(TX.TOO_EARLY);
    return undefined;
  }
  if (
    (tb && tb.maxTime !== 0n && tb.maxTime < closeTime + BigInt(time.upperBoundOffset)) ||
    (lb && lb.maxLedger !== 0 && lb.maxLedger <= ledgerSeq)
  ) {
    res.setInnermostError(TX.TOO_LATE);
    return undefined;
  }
  // A Soroban transaction's fee is inclusion fee + declared resource fee; only the former is held to the minimum.
  const inclusionFee = tx.fee - (tx.sorobanData?.resourceFee ?? 0n);
  if (chargeFee && inclusionFee < minInclusionFee(header, tx.operations.length)) {
    res.setInnermostError(TX.INSUFFICIENT_FEE);
    return undefined;
  }
  const source = getAccountRecord(env.state, tx.source);
  if (!source) {
    res.setInnermostError(TX.NO_ACCOUNT);
    return undefined;
  }
  return source;
}

/**
 * The Soroban data checks of core's commonValidPreSeqNum, with the codes the network answers: no Soroban data, a
 * negative resource fee or one above the transaction fee: txMALFORMED; a declaration above the network limit, a bad
 * footprint (duplicate keys, non-Soroban key types) or a resource fee below what the declared resources cost:
 * txSOROBAN_INVALID.
 */
function sorobanDataValidity(tx: ParsedTx): number | undefined {
  const data = tx.sorobanData;
  if (!data || data.resourceFee < 0n || data.resourceFee > tx.fee) return TX.MALFORMED;
  const { footprint, instructions, diskReadBytes, writeBytes } = data.resources;
  if (instructions > TX_MAX_INSTRUCTIONS) return TX.SOROBAN_INVALID;
  const keys = [...footprint.readOnly, ...footprint.readWrite];
  if (keys.some((k) => k.type !== 0 && k.type !== 1 && k.type !== 6 && k.type !== 7)) return TX.SOROBAN_INVALID;
  const distinct = new Set(keys.map((k) => Buffer.from(xdr.LedgerKey.schema.encode(k)).toString('base64')));
  if (distinct.size !== keys.length) return TX.SOROBAN_INVALID;
  const required = nonRefundableResourceFee(
    {
      instructions,
      diskReadBytes,
      writeBytes,
      diskReadEntries: keys.filter(isDiskReadKey).length,
      writeEntries: footprint.readWrite.length,
    },
    tx.envelopeSize,
  );
  if (data.resourceFee < required) return TX.SOROBAN_INVALID;
  return undefined;
}

function isBadSeq(header: HeaderView, current: bigint, tx: ParsedTx): boolean {
  if (tx.seqNum === startingSequenceNumber(header.ledgerSeq)) return true;
  if (tx.minSeqNum !== undefined) return current < tx.minSeqNum || current >= tx.seqNum;
  return current === INT64_MAX || current + 1n !== tx.seqNum;
}

function isTooEarlyForAccount(
  header: HeaderView,
  ledgerSeq: number,
  acc: AccountRecord,
  tx: ParsedTx,
  lowerOffset: number,
): boolean {
  const seqTime = acc.extVersion >= 3 ? acc.seqTime : 0n;
  const seqLedger = acc.extVersion >= 3 ? acc.seqLedger : 0;
  const lowerBoundCloseTime = BigInt(header.closeTime + lowerOffset);
  if (tx.minSeqAge > lowerBoundCloseTime || lowerBoundCloseTime - tx.minSeqAge < seqTime) return true;
  return tx.minSeqLedgerGap > ledgerSeq || ledgerSeq - tx.minSeqLedgerGap < seqLedger;
}

function checkTransactionSignatures(tx: ParsedTx, checker: SignatureChecker, source: AccountRecord): boolean {
  if (!checker.check(accountSigners(source), source.thresholds[1])) return false;
  if (tx.extraSigners.length > 0) {
    // Every extra signer must have signed: weight 1 each, all of them needed.
    const extra = tx.extraSigners.map((k) => ({ ...signerKeyFromWire(k), weight: 1 }));
    if (!checker.check(extra, extra.length)) return false;
  }
  return true;
}

/** core commonValid: the transaction-level checks, setting the innermost error on `res`. */
export function commonValid(
  tx: ParsedTx,
  checker: SignatureChecker,
  env: ValidationEnv,
  applying: boolean,
  chargeFee: boolean,
  time: TimeOptions,
  res: TxResult,
): Validity {
  const source = commonValidPreSeqNum(tx, env, chargeFee, time, res);
  if (!source) return Validity.Invalid;
  if (isBadSeq(env.header, source.seqNum, tx)) {
    res.setInnermostError(TX.BAD_SEQ);
    return Validity.Invalid;
  }
  const ledgerSeq = time.validationLedgerSeq ?? env.header.ledgerSeq;
  if (isTooEarlyForAccount(env.header, ledgerSeq, source, tx, time.lowerBoundOffset)) {
    res.setInnermostError(TX.BAD_MIN_SEQ_AGE_OR_GAP);
    return Validity.InvalidUpdateSeqNum;
  }
  if (!checkTransactionSignatures(tx, checker, source)) {
    res.setInnermostError(TX.BAD_AUTH);
    return Validity.InvalidUpdateSeqNum;
  }
  // At apply the fee has already been taken, so only "not below the reserve" is left to check.
  const feeToPay = applying ? 0n : tx.fee;
  if (chargeFee && availableBalance(env.header, source) < feeToPay) {
    res.setInnermostError(TX.INSUFFICIENT_BALANCE);
    return Validity.InvalidPostAuth;
  }
  return Validity.MaybeValid;
}

export function operationSource(op: ParsedTx['operations'][number], tx: ParsedTx): string {
  return op.sourceAccount ? accountIdFromMuxed(op.sourceAccount) : tx.source;
}

const THRESHOLD_INDEX = { LOW: 1, MEDIUM: 2, HIGH: 3 } as const;

/** An operation's signature check (OperationFrame::checkSignature); a failing result, or undefined. */
export function checkOperationSignature(
  op: ParsedTx['operations'][number],
  tx: ParsedTx,
  checker: SignatureChecker,
  state: StateReader,
  forApply: boolean,
): OpResult | undefined {
  const source = operationSource(op, tx);
  const acc = getAccountRecord(state, source);
  if (acc) {
    const handler = operationHandler(op.body.type);
    const level = handler?.threshold?.(op.body) ?? 'MEDIUM';
    if (!checker.check(accountSigners(acc), acc.thresholds[THRESHOLD_INDEX[level]])) return opError(OP.BAD_AUTH);
    return undefined;
  }
  // A source that does not exist yet (e.g. created by an earlier operation) must sign with its master key.
  if (forApply || !op.sourceAccount) return opError(OP.NO_ACCOUNT);
  if (!checker.check(masterKeyOnly(source), 0)) return opError(OP.BAD_AUTH);
  return undefined;
}

/** OperationFrame::checkValid: support, signature (or, when applying, existence) and well-formedness. */
export function checkOperation(
  op: ParsedTx['operations'][number],
  tx: ParsedTx,
  checker: SignatureChecker,
  env: ValidationEnv,
  forApply: boolean,
): OpResult | undefined {
  const handler = operationHandler(op.body.type);
  if (!handler) return opError(OP.NOT_SUPPORTED);
  const source = operationSource(op, tx);
  if (!forApply) {
    const failure = checkOperationSignature(op, tx, checker, env.state, false);
    if (failure) return failure;
  } else if (!getAccountRecord(env.state, source)) {
    return opError(OP.NO_ACCOUNT);
  }
  return handler.checkValid(op.body, { source, header: env.header, state: env.state });
}

/** checkValidWithOptionallyChargedFee: everything about one (inner) transaction, results written into `res`. */
function checkValidInner(tx: ParsedTx, env: ValidationEnv, chargeFee: boolean, time: TimeOptions, res: TxResult): void {
  const checker = new SignatureChecker(tx.contentsHash, tx.signatures);
  if (commonValid(tx, checker, env, false, chargeFee, time, res) !== Validity.MaybeValid) return;
  for (let i = 0; i < tx.operations.length; i++) {
    const failure = checkOperation(tx.operations[i] as ParsedTx['operations'][number], tx, checker, env, false);
    if (failure) {
      // Core fails fast here: later operations keep their default results.
      res.opResults[i] = failure;
      res.setInnermostError(TX.FAILED);
      return;
    }
  }
  if (!checker.allUsed()) res.setInnermostError(TX.BAD_AUTH_EXTRA);
}

/**
 * Full submission-time validation of an envelope (TransactionFrame / FeeBumpTransactionFrame ::checkValid).
 * The result is a success result when the transaction may be queued; feeCharged is baseFee x operations, as core
 * reports it in validation results.
 */
export function checkValid(parsed: ParsedEnvelope, env: ValidationEnv, time: TimeOptions): TxResult {
  const { header } = env;
  const inner = parsed.inner;
  if (!parsed.feeBump) {
    const res = TxResult.success(inner, minInclusionFee(header, inner.operations.length));
    checkValidInner(inner, env, true, time, res);
    return res;
  }

  const fb = parsed.feeBump;
  const outerMin = minInclusionFee(header, parsed.feeOps);
  const res = TxResult.success(inner, outerMin, { innerFeeCharged: 0n });
  if (fb.fee < 0n) return TxResult.error(TX.MALFORMED);
  if (fb.fee < outerMin) {
    res.setError(TX.INSUFFICIENT_FEE);
    return res;
  }
  // The fee-bump must raise the per-operation fee: outerFee x innerOps >= innerFee x (innerOps + 1).
  const innerMin = minInclusionFee(header, inner.operations.length);
  const v1 = fb.fee * innerMin;
  const v2 = inner.fee * outerMin;
  if (v1 < v2) {
    res.setInsufficientFee((v2 + innerMin - 1n) / innerMin);
    return res;
  }
  const feeSource = getAccountRecord(env.state, fb.feeSource);
  if (!feeSource) {
    res.setError(TX.NO_ACCOUNT);
    return res;
  }
  const checker = new SignatureChecker(fb.contentsHash, fb.signatures);
  if (!checker.check(accountSigners(feeSource), feeSource.thresholds[1])) {
    res.setError(TX.BAD_AUTH);
    return res;
  }
  if (availableBalance(header, feeSource) < fb.fee) {
    res.setError(TX.INSUFFICIENT_BALANCE);
    return res;
  }
  if (!checker.allUsed()) {
    res.setError(TX.BAD_AUTH_EXTRA);
    return res;
  }
  checkValidInner(inner, env, false, time, res);
  return res;
}
