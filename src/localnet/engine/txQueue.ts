// The transaction queue as stellar-core keeps it (TransactionQueue, TxQueueLimiter, SurgePricingUtils and
// TxSetFrame's surge pricing), for classic transactions:
//   - one transaction per (inner) source account; a fee-bump of the same sequence number may replace it at 10x;
//   - capacity QUEUE_LEDGER_MULTIPLIER ledgers' worth of operations (a fee-bump counts its inner operations + 1);
//   - when full, a new transaction evicts the lowest-rate queued ones (fee rate = inclusion fee / operations, compared
//     by cross-multiplication) only if its rate is strictly higher than each of them; otherwise it is refused with
//     txINSUFFICIENT_FEE and the smallest full fee that would have got it in (core's computeBetterFee + flat fee),
//     and banned. Evicted transactions are banned too, and until the next ledger closes every newcomer must beat
//     the last evicted rate (core's mLaneEvictedInclusionFee);
//   - banned hashes answer TRY_AGAIN_LATER for BAN_LEDGERS closes; a transaction left out of PENDING_DEPTH sets in a
//     row, or no longer valid after a close, is dropped and banned;
//   - the transaction set: everything when the classic operations fit maxTxSetSize, else the highest rates first
//     (ties by arrival), skipping what does not fit; such a surge-priced set charges every classic transaction the
//     lowest per-operation inclusion fee it holds (rounded down), else the ledger's base fee.
// Soroban transactions are queued here too but stay outside the classic limit: core gives them their own queue and
// resource limits, which localnet does not model (they are never evicted, never evict, and always go in the next set).
// Core breaks fee ties at random; localnet breaks them by arrival, so runs are repeatable.

import { SOROBAN_OP_TYPES } from './codes';
import type { ParsedEnvelope } from './envelope';

/** A queued fee-bump must pay 10x the per-operation fee of the transaction it replaces (core FEE_MULTIPLIER). */
const FEE_MULTIPLIER = 10n;
/** The queue holds at most this many ledgers' worth of operations (core's POOL_LEDGER_MULTIPLIER). */
export const QUEUE_LEDGER_MULTIPLIER = 2;
/** Ledger closes a banned hash is refused for (core TRANSACTION_QUEUE_BAN_LEDGERS). */
export const BAN_LEDGERS = 10;
/** Ledger closes a transaction may wait in the queue before it is dropped and banned (TRANSACTION_QUEUE_TIMEOUT_LEDGERS). */
export const PENDING_DEPTH = 4;

/** A bid: inclusion fee over the operations counted for fees. */
export interface Bid {
  fee: bigint;
  ops: bigint;
}

interface Entry {
  parsed: ParsedEnvelope;
  bid: Bid;
  soroban: boolean;
  /** Submission order, for ties. */
  arrival: number;
  /** Closes this transaction (or the one it replaced) has waited through. */
  age: number;
}

/** The fee the inclusion rules look at: the declared fee minus a Soroban transaction's resource fee. */
export function inclusionFee(parsed: ParsedEnvelope): bigint {
  return parsed.fullFee - (parsed.inner.sorobanData?.resourceFee ?? 0n);
}

export function bidOf(parsed: ParsedEnvelope): Bid {
  return { fee: inclusionFee(parsed), ops: BigInt(Math.max(1, parsed.feeOps)) };
}

/** core feeRate3WayCompare: the sign of a.fee / a.ops - b.fee / b.ops, without division. */
export function compareRates(a: Bid, b: Bid): number {
  const l = a.fee * b.ops;
  const r = b.fee * a.ops;
  return l < r ? -1 : l > r ? 1 : 0;
}

/** core computeBetterFee: the smallest inclusion fee for `ops` operations whose rate beats `ref`'s. */
function betterFee(ref: Bid, ops: bigint): bigint {
  return (ref.fee * ops) / ref.ops + 1n;
}

export function isSorobanTx(parsed: ParsedEnvelope): boolean {
  return parsed.inner.operations.some((op) => SOROBAN_OP_TYPES.has(op.body.type));
}

/** core isDuplicateTx: same envelope, or a queued fee-bump whose inner transaction is resubmitted bare. */
export function isDuplicate(queued: ParsedEnvelope, incoming: ParsedEnvelope): boolean {
  const queuedIsFeeBump = queued.feeBump !== undefined;
  const incomingIsFeeBump = incoming.feeBump !== undefined;
  if (queuedIsFeeBump === incomingIsFeeBump) return queued.fullHash === incoming.fullHash;
  if (queuedIsFeeBump) return queued.inner.fullHash === incoming.fullHash;
  return false;
}

/**
 * core canReplaceByFee, on inclusion fees: undefined when `incoming` may replace `queued`, else the minimum full fee
 * that would (the 10x inclusion minimum plus `incoming`'s flat resource fee).
 */
export function replaceByFeeMinimum(incoming: ParsedEnvelope, queued: ParsedEnvelope): bigint | undefined {
  const newBid = bidOf(incoming);
  const oldBid = bidOf(queued);
  const minTotal = oldBid.fee * newBid.ops * FEE_MULTIPLIER;
  if (newBid.fee >= 0n && newBid.fee * oldBid.ops >= minTotal) return undefined;
  return (minTotal + oldBid.ops - 1n) / oldBid.ops + (incoming.fullFee - newBid.fee);
}

/** What the limiter decided about a newcomer (core TxQueueLimiter::canAddTx). */
export type Admission =
  | { ok: true; evict: ParsedEnvelope[] }
  /** Refused: with `minFee`, txINSUFFICIENT_FEE naming that full fee; without, TRY_AGAIN_LATER. Banned either way. */
  | { ok: false; minFee?: bigint };

/** The next ledger's transactions and what they are charged. */
export interface TxSetPlan {
  /** In application order. */
  txs: ParsedEnvelope[];
  /** The classic transactions' per-operation base fee (the set component's baseFee); Soroban ones pay the header's. */
  classicBaseFee: bigint;
  /** True when classic transactions were left out: the set is surge priced. */
  surged: boolean;
}

export class TransactionQueue {
  private entries: Entry[] = [];
  private readonly bySource = new Map<string, Entry>();
  /** Fees queued per fee-paying account (core mTotalFees): a fee source must afford all of them. */
  private readonly feesBySource = new Map<string, bigint>();
  /** bans[0] fills during the current ledger; the last one is forgotten at the next close. */
  private bans: Set<string>[] = Array.from({ length: BAN_LEDGERS }, () => new Set<string>());
  /** The last rate evicted since the latest close: every newcomer must beat it. */
  private lastEvicted: Bid | undefined;
  private arrivals = 0;

  /** `ledgerOps`: maxTxSetSize, the classic operations one ledger holds. */
  constructor(private readonly ledgerOps: number) {}

  get size(): number {
    return this.entries.length;
  }

  /** The queued envelopes in arrival order (what a snapshot keeps). */
  envelopes(): string[] {
    return this.entries.map((e) => e.parsed.envelopeXdr);
  }

  /** The transaction queued for this (inner) source account. */
  queued(source: string): ParsedEnvelope | undefined {
    return this.bySource.get(source)?.parsed;
  }

  /** The full fees queued for this fee source. */
  queuedFees(feeSource: string): bigint {
    return this.feesBySource.get(feeSource) ?? 0n;
  }

  isBanned(fullHash: string): boolean {
    return this.bans.some((b) => b.has(fullHash));
  }

  ban(fullHash: string): void {
    this.bans[0]!.add(fullHash);
  }

  /**
   * Whether a classic transaction fits, replacing `replacing` (a queued transaction of its source), and what it would
   * evict (core canAddTx + SurgePricingPriorityQueue::canFitWithEviction). Soroban transactions always fit.
   */
  admit(parsed: ParsedEnvelope, replacing?: ParsedEnvelope): Admission {
    if (isSorobanTx(parsed)) return { ok: true, evict: [] };
    const bid = bidOf(parsed);
    const flat = parsed.fullFee - bid.fee;
    if (this.lastEvicted && compareRates(this.lastEvicted, bid) >= 0) {
      return { ok: false, minFee: betterFee(this.lastEvicted, bid.ops) + flat };
    }
    const limit = BigInt(this.ledgerOps * QUEUE_LEDGER_MULTIPLIER);
    // The transaction it replaces leaves, so its operations count as room.
    const discount = replacing && !isSorobanTx(replacing) ? BigInt(replacing.feeOps) : 0n;
    const newOps = BigInt(parsed.feeOps) > discount ? BigInt(parsed.feeOps) - discount : 0n;
    if (newOps > limit) return { ok: false };
    let need = this.classicOps() + newOps - limit;
    if (need <= 0n) return { ok: true, evict: [] };

    const evict: ParsedEnvelope[] = [];
    for (const candidate of this.evictionOrder()) {
      // Only a strictly lower rate may be evicted; the first that is not says what fee would have been enough.
      if (compareRates(candidate.bid, bid) >= 0) return { ok: false, minFee: betterFee(candidate.bid, bid.ops) + flat };
      // A source's own transaction is never evicted to make room for it (core: TRY_AGAIN_LATER).
      if (candidate.parsed.inner.source === parsed.inner.source) return { ok: false };
      evict.push(candidate.parsed);
      need -= BigInt(candidate.parsed.feeOps);
      if (need <= 0n) return { ok: true, evict };
    }
    // Unreachable while the queue's own operations never exceed the limit; refused rather than overfilled.
    return { ok: false };
  }

  /** Queues `parsed` (in place of `replacing`), then evicts and bans what admit() named. */
  add(parsed: ParsedEnvelope, replacing: ParsedEnvelope | undefined, evict: readonly ParsedEnvelope[]): void {
    const old = replacing ? this.bySource.get(replacing.inner.source) : undefined;
    const entry: Entry = {
      parsed,
      bid: bidOf(parsed),
      soroban: isSorobanTx(parsed),
      arrival: old ? old.arrival : this.arrivals++,
      // Replacing keeps the account's age, as core's AccountState does.
      age: old ? old.age : 0,
    };
    if (old) {
      this.forget(old);
      this.entries[this.entries.indexOf(old)] = entry;
    } else {
      this.entries.push(entry);
    }
    this.remember(entry);
    for (const victim of evict) {
      const e = this.bySource.get(victim.inner.source);
      if (!e || e.parsed !== victim) continue;
      this.drop(e);
      this.ban(victim.fullHash);
      this.lastEvicted = e.bid;
    }
  }

  /** core's tx set building (SurgePricingPriorityQueue::getMostTopTxsWithinLimits with gaps, computeLaneBaseFee). */
  plan(ledgerBaseFee: bigint): TxSetPlan {
    const classic = this.entries.filter((e) => !e.soroban);
    const classicOps = classic.reduce((n, e) => n + e.parsed.feeOps, 0);
    if (classicOps <= this.ledgerOps) {
      // Everything fits: applied in arrival order, charged the network's base fee.
      return { txs: this.entries.map((e) => e.parsed), classicBaseFee: ledgerBaseFee, surged: false };
    }
    const byRate = [...classic].sort((a, b) => compareRates(b.bid, a.bid) || a.arrival - b.arrival);
    const chosen: Entry[] = [];
    let room = this.ledgerOps;
    for (const e of byRate) {
      if (e.parsed.feeOps > room) continue;
      chosen.push(e);
      room -= e.parsed.feeOps;
    }
    // The lowest per-operation bid that made it in (rounded down, as core from protocol 20) is what all of them pay.
    let baseFee: bigint | undefined;
    for (const e of chosen) {
      const perOp = e.bid.fee / e.bid.ops;
      if (baseFee === undefined || perOp < baseFee) baseFee = perOp;
    }
    // Core applies the classic phase before the Soroban phase; within it localnet keeps the order the set was built in.
    const soroban = this.entries.filter((e) => e.soroban).map((e) => e.parsed);
    return {
      txs: [...chosen.map((e) => e.parsed), ...soroban],
      classicBaseFee: baseFee ?? ledgerBaseFee,
      surged: true,
    };
  }

  /**
   * After a close (core removeApplied, shift, then the re-validation of what is left): applied transactions leave,
   * bans age by one ledger, the eviction bar is lifted, transactions that have waited PENDING_DEPTH closes or that
   * `stillValid` refuses against the new ledger are dropped and banned.
   */
  afterClose(applied: ReadonlySet<ParsedEnvelope>, stillValid: (parsed: ParsedEnvelope) => boolean): void {
    this.bans.pop();
    this.bans.unshift(new Set<string>());
    this.lastEvicted = undefined;
    const kept: Entry[] = [];
    for (const e of this.entries) {
      if (applied.has(e.parsed)) {
        this.forget(e);
        continue;
      }
      e.age++;
      if (e.age >= PENDING_DEPTH || !stillValid(e.parsed)) {
        this.forget(e);
        this.ban(e.parsed.fullHash);
        continue;
      }
      kept.push(e);
    }
    this.entries = kept;
  }

  private classicOps(): bigint {
    let n = 0;
    for (const e of this.entries) if (!e.soroban) n += e.parsed.feeOps;
    return BigInt(n);
  }

  /** Lowest rate first; among equal rates the latest arrival goes first (the reverse of the set-building order). */
  private evictionOrder(): Entry[] {
    return this.entries.filter((e) => !e.soroban).sort((a, b) => compareRates(a.bid, b.bid) || b.arrival - a.arrival);
  }

  private remember(e: Entry): void {
    this.bySource.set(e.parsed.inner.source, e);
    this.feesBySource.set(e.parsed.feeSource, this.queuedFees(e.parsed.feeSource) + e.parsed.fullFee);
  }

  private forget(e: Entry): void {
    this.bySource.delete(e.parsed.inner.source);
    const left = this.queuedFees(e.parsed.feeSource) - e.parsed.fullFee;
    if (left > 0n) this.feesBySource.set(e.parsed.feeSource, left);
    else this.feesBySource.delete(e.parsed.feeSource);
  }

  private drop(e: Entry): void {
    this.forget(e);
    this.entries = this.entries.filter((x) => x !== e);
  }
}
