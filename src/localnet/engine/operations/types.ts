import type { xdr } from '@stellar/stellar-sdk';
import type { ParsedTx } from '../envelope';
import type { SorobanOutcome } from '../meta';
import type { HeaderView } from '../reserves';
import type { OpResult } from '../results';
import type { LedgerTxn, StateReader } from '../state';
import type { OperationEvents } from '../unifiedEvents';

export type ThresholdLevel = 'LOW' | 'MEDIUM' | 'HIGH';

export type BodyOf<T extends number> = Extract<xdr.OperationBodyWire, { type: T }>;

/** What an operation sees while it is applied: its own nested ledger transaction and its effective source. */
export interface OpContext {
  ltx: LedgerTxn;
  header: HeaderView;
  /** The operation's source (explicit, or the transaction's), G-address. */
  source: string;
  sourceMuxed: xdr.MuxedAccountWire;
  tx: ParsedTx;
  /** What a Soroban operation hands to the transaction's meta (return value, resource fees). */
  soroban: SorobanOutcome;
  /** The operation's CAP-67 events; kept only if the whole transaction succeeds. */
  events: OperationEvents;
}

/** What the stateless well-formedness check sees (core doCheckValid). */
export interface CheckContext {
  source: string;
  header: HeaderView;
  /** The state validated against (the last closed ledger at submission). */
  state: StateReader;
}

export interface OperationHandler<T extends number = number> {
  type: T;
  /** Signature threshold the source must meet (default MEDIUM). */
  threshold?(body: BodyOf<T>): ThresholdLevel;
  /** Returns a failing result when malformed (checked at submission and again at apply), else undefined. */
  checkValid(body: BodyOf<T>, ctx: CheckContext): OpResult | undefined;
  /** Applies the operation in ctx.ltx; the result's code says whether it succeeded. */
  apply(body: BodyOf<T>, ctx: OpContext): OpResult;
}

export function defineOperation<T extends number>(handler: OperationHandler<T>): OperationHandler<T> {
  return handler;
}
