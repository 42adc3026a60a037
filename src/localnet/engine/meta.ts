// Transaction meta, ledger headers and LedgerCloseMeta, shaped as stellar-core emits them for the configured
// protocol: from protocol 23 TransactionMeta v4 inside LedgerCloseMeta v2 (with TransactionResultMetaV1), before
// that TransactionMeta v3 inside LedgerCloseMeta v1.
// Events (v4, as core 23 with EMIT_CLASSIC_EVENTS): each operation's CAP-67 events in OperationMetaV2.events (classic
// transfer / mint / burn from unifiedEvents.ts; the Stellar Asset Contract's own events for a Soroban call), kept only
// when the transaction succeeds, and the transaction-level `fee` event (stage BEFORE_ALL_TXS, the fee charged) in
// TransactionMetaV4.events, failed or not. localnet refunds no Soroban fee, so there is never a refund event
// (core's negative `fee` at AFTER_ALL_TXS). Before protocol 23 (v3) only the Soroban call's events have a place.
// The ledger header keeps the network's baseFee whatever the surge: as in core, the fee a surge-priced set charged
// is the baseFee of its transaction-set component (GeneralizedTransactionSet, in the LedgerCloseMeta).

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
  /** Per operation, its classic CAP-67 events (v4 only). */
  operationEvents: readonly (readonly xdr.ContractEventWire[])[] = [],
  /** The transaction-level events: its fee event (v4 only). */
  txEvents: readonly xdr.TransactionEventWire[] = [],
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
          events: [...(operationEvents[i] ?? []), ...(i === 0 ? (soroban?.events ?? []) : [])],
        })),
        txChangesAfter: [],
        sorobanMeta: soroban ? { ext: sorobanMetaExt(soroban), returnValue: sorobanReturnValue ?? null } : null,
        events: [...txEvents],
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

/** One phase's transactions (each with the hex sha256 of its whole envelope) and the per-operation base fee. */
export interface PhaseTxs {
  txs: { envelope: xdr.TransactionEnvelopeWire; fullHash: string }[];
  baseFee: bigint;
}

/** Core's canonical order inside a component: by the hash of the whole envelope (sortTxsInHashOrder). */
function inHashOrder(txs: PhaseTxs['txs']): xdr.TransactionEnvelopeWire[] {
  return [...txs]
    .sort((a, b) => (a.fullHash < b.fullHash ? -1 : a.fullHash > b.fullHash ? 1 : 0))
    .map((t) => t.envelope);
}

/**
 * The (generalized, protocol >= 20) transaction set: a classic phase whose one component carries the base fee its
 * transactions were charged at (the surge fee when surge priced), and the Soroban phase (from protocol 23 a parallel
 * component with one stage of one cluster).
 */
export function transactionSetWire(
  protocolVersion: number,
  previousLedgerHash: Uint8Array,
  classicTxs: PhaseTxs,
  sorobanTxs: PhaseTxs,
): xdr.GeneralizedTransactionSetWire {
  const component = (p: PhaseTxs): xdr.TxSetComponentWire[] =>
    p.txs.length ? [{ type: 0, txsMaybeDiscountedFee: { baseFee: p.baseFee, txs: inHashOrder(p.txs) } }] : [];
  const classic: xdr.TransactionPhaseWire = { v: 0, v0Components: component(classicTxs) };
  const soroban: xdr.TransactionPhaseWire =
    protocolVersion >= 23
      ? {
          v: 1,
          parallelTxsComponent: sorobanTxs.txs.length
            ? { baseFee: sorobanTxs.baseFee, executionStages: [[inHashOrder(sorobanTxs.txs)]] }
            : { baseFee: null, executionStages: [] },
        }
      : { v: 0, v0Components: component(sorobanTxs) };
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
