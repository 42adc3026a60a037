// The operation registry. Operation types not listed here (offers, claimable balances, clawback, allowTrust /
// setTrustLineFlags, liquidity pools, inflation, extendFootprintTtl, restoreFootprint) are not modelled: validation
// answers opNOT_SUPPORTED for them, so the transaction fails with txFAILED at submission instead of being accepted.
// invokeHostFunction is modelled for uploads and contract creation only (its checkValid refuses the rest the same way).

import { accountMerge } from './accountMerge';
import { bumpSequence } from './bumpSequence';
import { changeTrust } from './changeTrust';
import { createAccount } from './createAccount';
import { invokeHostFunction } from './invokeHostFunction';
import { manageData } from './manageData';
import { pathPaymentStrictReceive, pathPaymentStrictSend } from './pathPayments';
import { payment } from './payment';
import { revokeSponsorship } from './revokeSponsorship';
import { setOptions } from './setOptions';
import { beginSponsoringFutureReserves, endSponsoringFutureReserves } from './sponsorship';
import type { OperationHandler } from './types';

const handlers: OperationHandler[] = [
  createAccount,
  payment,
  pathPaymentStrictReceive,
  pathPaymentStrictSend,
  setOptions,
  changeTrust,
  accountMerge,
  manageData,
  bumpSequence,
  beginSponsoringFutureReserves,
  endSponsoringFutureReserves,
  revokeSponsorship,
  invokeHostFunction,
] as unknown as OperationHandler[];

const byType = new Map<number, OperationHandler>(handlers.map((h) => [h.type, h]));

/** The handler of a modelled operation type, or undefined (then the operation is opNOT_SUPPORTED). */
export function operationHandler(type: number): OperationHandler | undefined {
  return byType.get(type);
}

export type { OpContext, CheckContext, ThresholdLevel } from './types';
