// Transaction meta, ledger headers and LedgerCloseMeta, shaped as stellar-core emits them for the configured
// protocol: from protocol 23 TransactionMeta v4 inside LedgerCloseMeta v2 (with TransactionResultMetaV1), before
// that TransactionMeta v3 inside LedgerCloseMeta v1. Of the events, only the Stellar Asset Contract's transfer events
// (from a Soroban transfer) are emitted; CAP-67 classic transfer and fee events are not.

import { createHash } from 'node:crypto';
import { xdr } from '@stellar/stellar-sdk';
import { ledgerEntryWire, ledgerKeyWire } from './encode';
import type { EntryChange } from './state';

export function ledgerEntryChanges(changes: readonly EntryChange[]): xdr.LedgerEntryChangeWire[] {
  const out: xdr.LedgerEntryChangeWire[] = [];
  for (const { before, after } of changes) {
    if (before) out.push({ type: 3, state: ledgerEntryWire(before) });
    if (after)
      out.push(before ? { type: 1, updated: ledgerEntryWire(after) } : { type: 0, created: ledgerEntryWire(after) });
    else if (before) out.push({ type: 2, removed: ledgerKeyWire(before) });
  }
  return out;
}

/** What a successful Soroban operation leaves for its transaction's SorobanTransactionMeta. */
export interface SorobanOutcome {
  returnValue?: xdr.ScValWire;
  /** Contract events of the (single) Soroban operation. */
  events?: xdr.ContractEventWire[];
  /** The resource fee charged, split as the meta reports it (the whole declared fee: localnet refunds nothing). */
  fees?: { nonRefundable: bigint; refundable: bigint; rent: bigint };
}

function sorobanMetaExt(soroban: SorobanOutcome): xdr.SorobanTransactionMetaExtWire {
  if (!soroban.fees) return { v: 0 };
  return {
    v: 1,
    v1: {
      ext: { v: 0 },
      totalNonRefundableResourceFeeCharged: soroban.fees.nonRefundable,
      totalRefundableResourceFeeCharged: soroban.fees.refundable,
      rentFeeCharged: soroban.fees.rent,
    },
  };
}

export function transactionMetaWire(
  protocolVersion: number,
  txChangesBefore: readonly EntryChange[],
  operationChanges: readonly (readonly EntryChange[])[],
  soroban?: SorobanOutcome,
): xdr.TransactionMetaWire {
  const before = ledgerEntryChanges(txChangesBefore);
  const sorobanReturnValue = soroban?.returnValue;
  if (protocolVersion >= 23) {
    return {
      v: 4,
      v4: {
        ext: { v: 0 },
        txChangesBefore: before,
        operations: operationChanges.map((c, i) => ({
          ext: { v: 0 },
          changes: ledgerEntryChanges(c),
          events: i === 0 ? (soroban?.events ?? []) : [],
        })),
        txChangesAfter: [],
        sorobanMeta: soroban ? { ext: sorobanMetaExt(soroban), returnValue: sorobanReturnValue ?? null } : null,
        events: [],
        diagnosticEvents: [],
      },
    };
  }
  return {
    v: 3,
    v3: {
      ext: { v: 0 },
      txChangesBefore: before,
      operations: operationChanges.map((c) => ({ changes: ledgerEntryChanges(c) })),
      txChangesAfter: [],
      sorobanMeta: soroban
        ? {
            ext: sorobanMetaExt(soroban),
            events: soroban.events ?? [],
            returnValue: sorobanReturnValue ?? { type: 1 },
            diagnosticEvents: [],
          }
        : null,
    },
  };
}

export const sha256 = (data: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(data).digest());

/** The ledger-header fields the engine tracks (the rest are constants). */
export interface HeaderFields {
  ledgerVersion: number;
  previousLedgerHash: Uint8Array;
  txSetHash: Uint8Array;
  closeTime: number;
  txSetResultHash: Uint8Array;
  bucketListHash: Uint8Array;
  ledgerSeq: number;
  totalCoins: bigint;
  feePool: bigint;
  baseFee: number;
  baseReserve: number;
  maxTxSetSize: number;
}

export function ledgerHeaderWire(h: HeaderFields): xdr.LedgerHeaderWire {
  const zero = new Uint8Array(32);
  return {
    ledgerVersion: h.ledgerVersion,
    previousLedgerHash: h.previousLedgerHash,
    scpValue: { txSetHash: h.txSetHash, closeTime: BigInt(h.closeTime), upgrades: [], ext: { v: 0 } },
    txSetResultHash: h.txSetResultHash,
    bucketListHash: h.bucketListHash,
    ledgerSeq: h.ledgerSeq,
    totalCoins: h.totalCoins,
    feePool: h.feePool,
    inflationSeq: 0,
    idPool: 0n,
    baseFee: h.baseFee,
    baseReserve: h.baseReserve,
    maxTxSetSize: h.maxTxSetSize,
    skipList: [zero, zero, zero, zero],
    ext: { v: 0 },
  };
}

/** The (generalized, protocol >= 20) transaction set: a classic phase with the ledger's base fee, an empty Soroban phase. */
export function transactionSetWire(
  protocolVersion: number,
  previousLedgerHash: Uint8Array,
  envelopes: xdr.TransactionEnvelopeWire[],
  baseFee: number,
): xdr.GeneralizedTransactionSetWire {
  const classic: xdr.TransactionPhaseWire = {
    v: 0,
    v0Components: envelopes.length
      ? [{ type: 0, txsMaybeDiscountedFee: { baseFee: BigInt(baseFee), txs: envelopes } }]
      : [],
  };
  const soroban: xdr.TransactionPhaseWire =
    protocolVersion >= 23
      ? { v: 1, parallelTxsComponent: { baseFee: null, executionStages: [] } }
      : { v: 0, v0Components: [] };
  return { v: 1, v1TxSet: { previousLedgerHash, phases: [classic, soroban] } };
}

export interface ProcessedTx {
  hash: Uint8Array;
  result: xdr.TransactionResultWire;
  feeProcessing: xdr.LedgerEntryChangeWire[];
  meta: xdr.TransactionMetaWire;
}

export function ledgerCloseMetaWire(
  protocolVersion: number,
  header: xdr.LedgerHeaderWire,
  headerHash: Uint8Array,
  txSet: xdr.GeneralizedTransactionSetWire,
  processed: readonly ProcessedTx[],
): xdr.LedgerCloseMetaWire {
  const ledgerHeader = { hash: headerHash, header, ext: { v: 0 as const } };
  if (protocolVersion >= 23) {
    return {
      v: 2,
      v2: {
        ext: { v: 0 },
        ledgerHeader,
        txSet,
        txProcessing: processed.map((p) => ({
          ext: { v: 0 },
          result: { transactionHash: p.hash, result: p.result },
          feeProcessing: p.feeProcessing,
          txApplyProcessing: p.meta,
          postTxApplyFeeProcessing: [],
        })),
        upgradesProcessing: [],
        scpInfo: [],
        totalByteSizeOfLiveSorobanState: 0n,
        evictedKeys: [],
      },
    };
  }
  return {
    v: 1,
    v1: {
      ext: { v: 0 },
      ledgerHeader,
      txSet,
      txProcessing: processed.map((p) => ({
        result: { transactionHash: p.hash, result: p.result },
        feeProcessing: p.feeProcessing,
        txApplyProcessing: p.meta,
      })),
      upgradesProcessing: [],
      scpInfo: [],
      totalByteSizeOfLiveSorobanState: 0n,
      evictedKeys: [],
      unused: [],
    },
  };
}
