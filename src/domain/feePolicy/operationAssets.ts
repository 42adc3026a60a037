// Which assets an operation type moves when its fields need not be read: the part of the approved-assets rule that is
// the same whether the transaction is a real one (transactions/describe.ts) or one an operator describes for a dry run
// (preview.ts). Every other type moves the assets its fields name, or cannot be judged from the transaction.

/** Types that move XLM and nothing else: a new account's starting balance, a merged account's balance, inflation. */
export const XLM_ONLY_OPERATIONS: ReadonlySet<string> = new Set(['createAccount', 'accountMerge', 'inflation']);

/** Types that move no asset at all (they still count as operations for the daily cap). */
export const ASSETLESS_OPERATIONS: ReadonlySet<string> = new Set([
  'bumpSequence',
  'manageData',
  'setOptions',
  'beginSponsoringFutureReserves',
  'endSponsoringFutureReserves',
  'revokeAccountSponsorship',
  'revokeTrustlineSponsorship',
  'revokeOfferSponsorship',
  'revokeDataSponsorship',
  'revokeClaimableBalanceSponsorship',
  'revokeLiquidityPoolSponsorship',
  'revokeSignerSponsorship',
  'extendFootprintTtl',
  'restoreFootprint',
]);
