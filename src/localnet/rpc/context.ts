// What the RPC methods read: the engine (current state, submission), the history (past ledgers and transactions),
// and a few settings. Built once by startLocalnet; tests build their own.
import type { LedgerEngine } from '../engine';
import type { FeeStats } from '../history/feeStats';
import type { HistoryStore } from '../history/historyStore';

export interface RpcSettings {
  /** Reported by getHealth as ledgerRetentionWindow; the history drops older ledgers. */
  retentionLedgers: number;
  /**
   * getHealth fails (-32603) when the latest ledger closed longer ago than this, like Stellar RPC's
   * max-healthy-ledger-latency (30 s). Undefined when ledgers close on demand: a paused network is not broken.
   */
  maxHealthyLedgerLatencyMs?: number;
  /** Path of the friendbot endpoint on this server, advertised by getNetwork; undefined = no friendbot. */
  friendbotPath?: string;
  /** Fallback `host[:port]` for URLs when a request carries no Host header. */
  defaultHost: string;
  /** localnet's own version, for getVersionInfo. */
  version: string;
}

export interface RpcContext {
  engine: LedgerEngine;
  history: HistoryStore;
  feeStats: FeeStats;
  settings: RpcSettings;
  /** Wall clock in ms (tests pin it). */
  nowMs(): number;
}
