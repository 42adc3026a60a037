// What can go wrong talking to Stellar, as types. Infra knows no HTTP codes: an unreachable RPC becomes 503
// STELLAR_UNAVAILABLE in one place (src/domain/errors.ts), and what a rejection means is the domain's to say
// (src/domain/funding/funding.ts decides that a rejected activation is FUND_XLM_FAILED).
import { DependencyUnavailableError } from '../errors';
import type { ResultCodes } from './resultCodes';

/** The RPC endpoint could not be reached (or kept answering TRY_AGAIN_LATER) through every retry. */
export class StellarUnavailableError extends DependencyUnavailableError {
  readonly dependency = 'stellar';
}

/**
 * The network refused a transaction: at submission (sendTransaction ERROR: bad sequence, bad auth, insufficient fee
 * or balance, too late...) or when applying it (getTransaction FAILED: underfunded, low reserve...). A submission
 * refusal charged nothing; an apply failure charged the fee and rolled every operation back.
 *
 * `requiredFeeStroops`: a submission refused with tx_insufficient_fee while the network surges (its transaction queue
 * is full) says in the result's feeCharged the full fee the transaction would need to get in, as stellar-core does.
 */
export class TransactionRejectedError extends Error {
  constructor(
    readonly hash: string,
    readonly stage: 'submission' | 'ledger',
    readonly codes: ResultCodes,
    readonly requiredFeeStroops?: bigint,
  ) {
    super(
      `transaction ${hash} ${stage === 'submission' ? 'refused at submission' : 'failed in the ledger'}: ${codes.transaction}${codes.operations.length ? ` [${codes.operations.join(', ')}]` : ''}`,
    );
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
