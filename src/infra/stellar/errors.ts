// What can go wrong talking to Stellar, as types the domain maps to the contract's codes. Infra knows no HTTP codes:
// src/domain/wallets/funding.ts decides that a rejected activation is FUND_XLM_FAILED and an unreachable RPC 503.
import type { ResultCodes } from './resultCodes';

/** The RPC endpoint could not be reached (or kept answering TRY_AGAIN_LATER) through every retry. */
export class StellarUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StellarUnavailableError';
  }
}

/**
 * The network refused a transaction: at submission (sendTransaction ERROR: bad sequence, bad auth, insufficient fee
 * or balance, too late...) or when applying it (getTransaction FAILED: underfunded, low reserve...). A submission
 * refusal charged nothing; an apply failure charged the fee and rolled every operation back.
 */
export class TransactionRejectedError extends Error {
  constructor(
    readonly hash: string,
    readonly stage: 'submission' | 'ledger',
    readonly codes: ResultCodes,
  ) {
    super(`transaction ${hash} ${stage === 'submission' ? 'refused at submission' : 'failed in the ledger'}: ${codes.transaction}${codes.operations.length ? ` [${codes.operations.join(', ')}]` : ''}`);
    this.name = 'TransactionRejectedError';
  }
}

/** A submitted transaction was in no ledger by the deadline; it may still be applied (until its time bound passes). */
export class TransactionUnconfirmedError extends Error {
  constructor(readonly hash: string) {
    super(`transaction ${hash} is not in a ledger yet`);
    this.name = 'TransactionUnconfirmedError';
  }
}

/** Friendbot (test funding) could not be reached or refused to fund the address. */
export class FriendbotUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FriendbotUnavailableError';
  }
}
