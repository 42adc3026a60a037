// Why an activation attempt ended without the wallet being funded, as the funding flow (funding.ts) and its batch
// queue (fundingQueue.ts) tell each other; funding.ts maps them to the contract's codes.
import { fromStroops } from '../money/amounts';

/** The funding wallet cannot cover reserve + starting balance + fee (or the app has none: all zero). */
export class FundingShortfall extends Error {
  constructor(
    readonly neededStroops: bigint,
    readonly reserveStroops: bigint,
    readonly startingBalanceXlm: string,
  ) {
    super(`the funding wallet cannot cover ${fromStroops(neededStroops)} XLM`);
    this.name = 'FundingShortfall';
  }
}

/** The chain refused the activation for a reason other than money (an asset's issuer is missing, say). */
export class ActivationFailed extends Error {
  constructor(
    message: string,
    readonly resultCodes?: { transaction: string; operations: string[] },
  ) {
    super(message);
    this.name = 'ActivationFailed';
  }
}

/** Another transaction used the source's sequence number, or the account appeared meanwhile: build again. */
export class Rebuild extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Rebuild';
  }
}
