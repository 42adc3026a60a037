// getFeeStats as Stellar RPC computes it (internal/feewindow): inclusion fees of the transactions in the last
// 10 ledgers (classic: fee charged / operation count, inner operations for a fee-bump) and the last 50 ledgers
// (Soroban: fee charged minus the resource fee, single-operation Soroban transactions only), summarised as
// min/max/mode/percentiles. Percentiles are nearest-rank: the ceil(p x n / 100)-th smallest fee.
import { xdr } from '@stellar/stellar-sdk';
import type { HistoryStore, LedgerRecord } from './historyStore';

export const CLASSIC_FEE_WINDOW_LEDGERS = 10;
export const SOROBAN_FEE_WINDOW_LEDGERS = 50;

/** The wire shape: every figure a string except ledgerCount (Go `json:",string"` tags). */
export interface FeeDistribution {
  max: string;
  min: string;
  mode: string;
  p10: string;
  p20: string;
  p30: string;
  p40: string;
  p50: string;
  p60: string;
  p70: string;
  p80: string;
  p90: string;
  p95: string;
  p99: string;
  transactionCount: string;
  ledgerCount: number;
}

const PERCENTILES = [10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99] as const;

/** Summarises fees; all zeros (ledgerCount 0 too) when there are none, as the RPC does. */
export function feeDistribution(feesIn: readonly bigint[], ledgerCount: number): FeeDistribution {
  const fees = [...feesIn].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const n = fees.length;
  const pct = (p: number): bigint => fees[Math.ceil((p * n) / 100) - 1] ?? 0n;
  let mode = fees[0] ?? 0n;
  if (n > 0) {
    // The RPC's mode: the longest run of equal fees, the smallest fee winning ties.
    let last = fees[0]!;
    let best = 0;
    let run = 0;
    for (let i = 1; i < n; i++) {
      if (fees[i] === last) {
        run++;
        continue;
      }
      if (run > best) {
        best = run;
        mode = last;
      }
      last = fees[i]!;
      run = 0;
    }
    if (run > best) mode = fees[n - 1]!;
  }
  const out: Record<string, string | number> = {
    max: String(fees[n - 1] ?? 0n),
    min: String(fees[0] ?? 0n),
    mode: String(mode),
  };
  for (const p of PERCENTILES) out[`p${p}`] = String(n ? pct(p) : 0n);
  out.transactionCount = String(n);
  out.ledgerCount = n ? ledgerCount : 0;
  return out as unknown as FeeDistribution;
}

interface LedgerFees {
  classic: bigint[];
  soroban: bigint[];
}

const SOROBAN_OPS = new Set(['invokeHostFunction', 'extendFootprintTtl', 'restoreFootprint']);

/** The operations of a transaction; a fee-bump's are its inner transaction's. */
export function operationsOf(envelope: xdr.TransactionEnvelope): xdr.Operation[] {
  switch (envelope.type) {
    case 'envelopeTypeTxV0':
      return envelope.v0.tx.operations;
    case 'envelopeTypeTx':
      return envelope.v1.tx.operations;
    case 'envelopeTypeTxFeeBump':
      return envelope.feeBump.tx.innerTx.v1.tx.operations;
  }
}

function sorobanResourceFee(metaXdr: string): bigint | undefined {
  const meta = xdr.TransactionMeta.fromXdr(metaXdr, 'base64');
  const soroban = meta.type === 'v3' ? meta.v3.sorobanMeta : meta.type === 'v4' ? meta.v4.sorobanMeta : null;
  if (!soroban || soroban.ext.type !== 'v1') return undefined;
  return soroban.ext.v1.totalNonRefundableResourceFeeCharged + soroban.ext.v1.totalRefundableResourceFeeCharged;
}

/** Fee statistics over a history; closed ledgers never change, so each one's fees are worked out once. */
export class FeeStats {
  private readonly perLedger = new WeakMap<LedgerRecord, LedgerFees>();

  constructor(private readonly history: HistoryStore) {}

  current(): { sorobanInclusionFee: FeeDistribution; inclusionFee: FeeDistribution } {
    const classicLedgers = this.history.lastLedgers(CLASSIC_FEE_WINDOW_LEDGERS);
    const sorobanLedgers = this.history.lastLedgers(SOROBAN_FEE_WINDOW_LEDGERS);
    return {
      sorobanInclusionFee: feeDistribution(
        sorobanLedgers.flatMap((l) => this.ledgerFees(l).soroban),
        sorobanLedgers.length,
      ),
      inclusionFee: feeDistribution(
        classicLedgers.flatMap((l) => this.ledgerFees(l).classic),
        classicLedgers.length,
      ),
    };
  }

  private ledgerFees(ledger: LedgerRecord): LedgerFees {
    let fees = this.perLedger.get(ledger);
    if (fees) return fees;
    fees = { classic: [], soroban: [] };
    for (const tx of ledger.transactions) {
      const ops = operationsOf(xdr.TransactionEnvelope.fromXdr(tx.envelopeXdr, 'base64'));
      if (ops.length === 0) continue;
      if (ops.length === 1 && SOROBAN_OPS.has(ops[0]!.body.type)) {
        const resource = sorobanResourceFee(tx.resultMetaXdr);
        if (resource !== undefined) fees.soroban.push(tx.feeCharged - resource);
        continue;
      }
      fees.classic.push(tx.feeCharged / BigInt(ops.length));
    }
    this.perLedger.set(ledger, fees);
    return fees;
  }
}
