// Applying one ledger's transactions, as stellar-core's LedgerManager does: first every fee is charged (and the
// fee-source changes recorded), then each transaction is applied in turn: re-validation against the ledger being
// closed, sequence-number bump, up-front signature checks of all operations, then the operations, each in its own
// nested LedgerTxn. Any operation failure (or an unfinished sponsorship sandwich) leaves the state as it was after
// the fee and sequence bump; the operation results still say which one failed and why.

import type { xdr } from '@stellar/stellar-sdk';
import { TX } from './codes';
import type { ParsedEnvelope, ParsedTx } from './envelope';
import { toHex } from './encode';
import type { SorobanOutcome } from './meta';
import { type HeaderView, noteSeqNumUpdate, removeSignerWithPossibleSponsorship } from './reserves';
import { TxResult, isOpSuccess } from './results';
import { SignatureChecker } from './signatures';
import { type AccountRecord, type EntryChange, LedgerTxn, type RootState, accountKey } from './state';
import { operationHandler } from './operations';
import { OperationEvents } from './unifiedEvents';
import { Validity, checkOperation, checkOperationSignature, commonValid, operationSource } from './validate';

export interface FeeCharge {
  result: TxResult;
  changes: EntryChange[];
  /** Stroops taken from the fee source. */
  charged: bigint;
}

/**
 * Phase 1 (processFeeSeqNum): charge min(declared inclusion fee, baseFee x ops), never more than the balance.
 * `baseFee` is the per-operation fee of the transaction's set component: the ledger's base fee, or the lowest bid of a
 * surge-priced set.
 */
export function chargeFee(parsed: ParsedEnvelope, root: RootState, header: HeaderView, baseFee: bigint): FeeCharge {
  const ltx = new LedgerTxn(root, header.ledgerSeq);
  const acc = ltx.load<AccountRecord>(accountKey(parsed.feeSource));
  if (!acc) {
    // Cannot happen for a transaction accepted against this state; reported rather than crashing the close.
    return { result: TxResult.error(TX.NO_ACCOUNT), changes: [], charged: 0n };
  }
  // A Soroban transaction's declared resource fee is charged in full on top of the inclusion fee (localnet does not
  // refund the unused refundable part).
  const resourceFee = parsed.inner.sorobanData?.resourceFee ?? 0n;
  const declared = parsed.fullFee - resourceFee;
  const adjusted = baseFee * BigInt(Math.max(1, parsed.feeOps));
  const inclusion = declared < adjusted ? declared : adjusted;
  let fee = inclusion + resourceFee;
  if (fee > acc.balance) fee = acc.balance;
  if (fee > 0n) acc.balance -= fee;
  const changes = ltx.changes();
  ltx.commit();

  const inner = parsed.inner;
  let result: TxResult;
  if (parsed.feeBump) {
    // Before protocol 25 the inner result reports the fee the inner transaction would have paid on its own, at the
    // same base fee.
    const innerMin = baseFee * BigInt(Math.max(1, inner.operations.length));
    const innerFeeCharged = header.protocolVersion < 25 ? (inner.fee < innerMin ? inner.fee : innerMin) : 0n;
    result = TxResult.success(inner, fee, { innerFeeCharged });
  } else {
    result = TxResult.success(inner, fee);
  }
  return { result, changes, charged: fee };
}

export interface ApplyOutcome {
  successful: boolean;
  /** Changes before the operations (one-time signer removal, sequence bump). */
  txChangesBefore: EntryChange[];
  /** Per operation, only when the transaction succeeded. */
  operationChanges: EntryChange[][];
  /** Per operation, its CAP-67 events, only when the transaction succeeded (core clears failed operations' meta). */
  operationEvents: xdr.ContractEventWire[][];
  /** A successful Soroban transaction's return value and fees (for SorobanTransactionMeta). */
  soroban?: SorobanOutcome;
}

/** Pre-auth signers are one-time: once the transaction they authorise is applied, they are removed. */
function removeOneTimeSigner(ltx: LedgerTxn, accountIds: Iterable<string>, hash: Uint8Array): void {
  const keyHex = toHex(hash);
  for (const id of new Set(accountIds)) {
    const current = ltx.get(accountKey(id));
    if (!current || current.kind !== 'account') continue;
    const index = current.signers.findIndex((s) => s.type === 1 && s.keyHex === keyHex);
    if (index < 0) continue;
    const acc = ltx.load<AccountRecord>(accountKey(id)) as AccountRecord;
    removeSignerWithPossibleSponsorship(ltx, acc, index);
  }
}

function sourceAccountsOf(tx: ParsedTx): string[] {
  return [tx.source, ...tx.operations.map((op) => operationSource(op, tx))];
}

/** TransactionFrame::processSignatures: every operation's signatures, before any operation runs. */
function processSignatures(
  cv: Validity,
  checker: SignatureChecker,
  ltx: LedgerTxn,
  tx: ParsedTx,
  res: TxResult,
): boolean {
  if (cv !== Validity.MaybeValid) {
    removeOneTimeSigner(ltx, sourceAccountsOf(tx), tx.contentsHash);
    return false;
  }
  let allOpsValid = true;
  tx.operations.forEach((op, i) => {
    const failure = checkOperationSignature(op, tx, checker, ltx, false);
    if (failure) {
      res.opResults[i] = failure;
      allOpsValid = false;
    }
  });
  removeOneTimeSigner(ltx, sourceAccountsOf(tx), tx.contentsHash);
  if (!allOpsValid) {
    res.setInnermostError(TX.FAILED);
    return false;
  }
  if (!checker.allUsed()) {
    res.setInnermostError(TX.BAD_AUTH_EXTRA);
    return false;
  }
  return true;
}

/** Phase 2: applies one transaction whose fee was charged; `res` is the result from chargeFee. */
export function applyTransaction(
  parsed: ParsedEnvelope,
  root: RootState,
  header: HeaderView,
  res: TxResult,
): ApplyOutcome {
  const tx = parsed.inner;
  const txChangesBefore: EntryChange[] = [];
  if (!res.isSuccess()) return { successful: false, txChangesBefore, operationChanges: [], operationEvents: [] };

  if (parsed.feeBump) {
    const ltx = new LedgerTxn(root, header.ledgerSeq);
    removeOneTimeSigner(ltx, [parsed.feeBump.feeSource], parsed.feeBump.contentsHash);
    txChangesBefore.push(...ltx.changes());
    ltx.commit();
  }

  // commonPreApply: validation against the ledger being closed, then the sequence number is consumed.
  const checker = new SignatureChecker(tx.contentsHash, tx.signatures);
  const pre = new LedgerTxn(root, header.ledgerSeq);
  const env = { state: pre, header };
  const cv = commonValid(tx, checker, env, true, !parsed.feeBump, { lowerBoundOffset: 0, upperBoundOffset: 0 }, res);
  if (cv >= Validity.InvalidUpdateSeqNum) {
    const acc = pre.load<AccountRecord>(accountKey(tx.source));
    if (acc) {
      acc.seqNum = tx.seqNum;
      noteSeqNumUpdate(header, acc);
    }
  }
  const signaturesValid = processSignatures(cv, checker, pre, tx, res);
  txChangesBefore.push(...pre.changes());
  pre.commit();
  if (!signaturesValid || cv !== Validity.MaybeValid)
    return { successful: false, txChangesBefore, operationChanges: [], operationEvents: [] };

  try {
    return { ...applyOperations(tx, checker, root, header, res), txChangesBefore };
  } catch {
    // An engine bug must not take the ledger down: core reports txINTERNAL_ERROR in that case.
    res.setInnermostError(TX.INTERNAL_ERROR);
    return { successful: false, txChangesBefore, operationChanges: [], operationEvents: [] };
  }
}

function applyOperations(
  tx: ParsedTx,
  checker: SignatureChecker,
  root: RootState,
  header: HeaderView,
  res: TxResult,
): Omit<ApplyOutcome, 'txChangesBefore'> {
  const ltxTx = new LedgerTxn(root, header.ledgerSeq);
  const operationChanges: EntryChange[][] = [];
  const operationEvents: xdr.ContractEventWire[][] = [];
  const soroban: SorobanOutcome = {};
  let success = true;
  tx.operations.forEach((op, i) => {
    const ltxOp = new LedgerTxn(ltxTx, header.ledgerSeq);
    const env = { state: ltxOp, header };
    const events = new OperationEvents(tx.networkId, tx.memo);
    let result = checkOperation(op, tx, checker, env, true);
    if (!result) {
      const handler = operationHandler(op.body.type);
      if (!handler) throw new Error(`operation type ${op.body.type} passed validation without a handler`);
      result = handler.apply(op.body, {
        ltx: ltxOp,
        header,
        source: operationSource(op, tx),
        sourceMuxed: op.sourceAccount ?? tx.sourceMuxed,
        tx,
        soroban,
        events,
      });
    }
    res.opResults[i] = result;
    const ok = isOpSuccess(result);
    if (!ok) success = false;
    // Later operations still run (and report their own results) but nothing is kept once one has failed.
    if (success) {
      operationChanges.push(ltxOp.changes());
      operationEvents.push(events.list);
    }
    if (ok) ltxOp.commit();
  });

  if (!success) {
    res.setInnermostError(TX.FAILED);
    return { successful: false, operationChanges: [], operationEvents: [] };
  }
  if (ltxTx.hasOpenSponsorship()) {
    res.setInnermostError(TX.BAD_SPONSORSHIP);
    return { successful: false, operationChanges: [], operationEvents: [] };
  }
  ltxTx.commit();
  return {
    successful: true,
    operationChanges,
    operationEvents,
    ...(soroban.returnValue ? { soroban } : {}),
  };
}
