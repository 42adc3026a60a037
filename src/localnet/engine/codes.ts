// Result codes exactly as numbered in Stellar-transaction.x (checked against the SDK's generated enums).
// Kept as plain numbers because results are built as XDR "wire" objects, whose unions switch on numbers.

export const TX = {
  FEE_BUMP_INNER_SUCCESS: 1,
  SUCCESS: 0,
  FAILED: -1,
  TOO_EARLY: -2,
  TOO_LATE: -3,
  MISSING_OPERATION: -4,
  BAD_SEQ: -5,
  BAD_AUTH: -6,
  INSUFFICIENT_BALANCE: -7,
  NO_ACCOUNT: -8,
  INSUFFICIENT_FEE: -9,
  BAD_AUTH_EXTRA: -10,
  INTERNAL_ERROR: -11,
  NOT_SUPPORTED: -12,
  FEE_BUMP_INNER_FAILED: -13,
  BAD_SPONSORSHIP: -14,
  BAD_MIN_SEQ_AGE_OR_GAP: -15,
  MALFORMED: -16,
  SOROBAN_INVALID: -17,
} as const;

/** OperationResultCode: opINNER carries the operation's own result; the others are void. */
export const OP = {
  INNER: 0,
  BAD_AUTH: -1,
  NO_ACCOUNT: -2,
  NOT_SUPPORTED: -3,
  TOO_MANY_SUBENTRIES: -4,
  EXCEEDED_WORK_LIMIT: -5,
  TOO_MANY_SPONSORING: -6,
} as const;

/** OperationType numbers (the discriminant of Operation.body and OperationResult.tr). */
export const OP_TYPE = {
  CREATE_ACCOUNT: 0,
  PAYMENT: 1,
  PATH_PAYMENT_STRICT_RECEIVE: 2,
  MANAGE_SELL_OFFER: 3,
  CREATE_PASSIVE_SELL_OFFER: 4,
  SET_OPTIONS: 5,
  CHANGE_TRUST: 6,
  ALLOW_TRUST: 7,
  ACCOUNT_MERGE: 8,
  INFLATION: 9,
  MANAGE_DATA: 10,
  BUMP_SEQUENCE: 11,
  MANAGE_BUY_OFFER: 12,
  PATH_PAYMENT_STRICT_SEND: 13,
  CREATE_CLAIMABLE_BALANCE: 14,
  CLAIM_CLAIMABLE_BALANCE: 15,
  BEGIN_SPONSORING_FUTURE_RESERVES: 16,
  END_SPONSORING_FUTURE_RESERVES: 17,
  REVOKE_SPONSORSHIP: 18,
  CLAWBACK: 19,
  CLAWBACK_CLAIMABLE_BALANCE: 20,
  SET_TRUST_LINE_FLAGS: 21,
  LIQUIDITY_POOL_DEPOSIT: 22,
  LIQUIDITY_POOL_WITHDRAW: 23,
  INVOKE_HOST_FUNCTION: 24,
  EXTEND_FOOTPRINT_TTL: 25,
  RESTORE_FOOTPRINT: 26,
} as const;

/** The Soroban operations: a transaction holding one is a Soroban transaction (core isSoroban). */
export const SOROBAN_OP_TYPES: ReadonlySet<number> = new Set<number>([
  OP_TYPE.INVOKE_HOST_FUNCTION,
  OP_TYPE.EXTEND_FOOTPRINT_TTL,
  OP_TYPE.RESTORE_FOOTPRINT,
]);

/** Name of the OperationResult.tr arm for each operation type (from the SDK's OperationResultTrWire). */
export const RESULT_ARM: readonly string[] = [
  'createAccountResult',
  'paymentResult',
  'pathPaymentStrictReceiveResult',
  'manageSellOfferResult',
  'createPassiveSellOfferResult',
  'setOptionsResult',
  'changeTrustResult',
  'allowTrustResult',
  'accountMergeResult',
  'inflationResult',
  'manageDataResult',
  'bumpSeqResult',
  'manageBuyOfferResult',
  'pathPaymentStrictSendResult',
  'createClaimableBalanceResult',
  'claimClaimableBalanceResult',
  'beginSponsoringFutureReservesResult',
  'endSponsoringFutureReservesResult',
  'revokeSponsorshipResult',
  'clawbackResult',
  'clawbackClaimableBalanceResult',
  'setTrustLineFlagsResult',
  'liquidityPoolDepositResult',
  'liquidityPoolWithdrawResult',
  'invokeHostFunctionResult',
  'extendFootprintTtlResult',
  'restoreFootprintResult',
];

export const CREATE_ACCOUNT = {
  SUCCESS: 0,
  MALFORMED: -1,
  UNDERFUNDED: -2,
  LOW_RESERVE: -3,
  ALREADY_EXIST: -4,
} as const;

export const PAYMENT = {
  SUCCESS: 0,
  MALFORMED: -1,
  UNDERFUNDED: -2,
  SRC_NO_TRUST: -3,
  SRC_NOT_AUTHORIZED: -4,
  NO_DESTINATION: -5,
  NO_TRUST: -6,
  NOT_AUTHORIZED: -7,
  LINE_FULL: -8,
  NO_ISSUER: -9,
} as const;

/** Shared by strict-receive and strict-send; -12 is OVER_SENDMAX for one and UNDER_DESTMIN for the other. */
export const PATH_PAYMENT = {
  ...PAYMENT,
  TOO_FEW_OFFERS: -10,
  OFFER_CROSS_SELF: -11,
  CONSTRAINT_NOT_MET: -12,
} as const;

export const SET_OPTIONS = {
  SUCCESS: 0,
  LOW_RESERVE: -1,
  TOO_MANY_SIGNERS: -2,
  BAD_FLAGS: -3,
  INVALID_INFLATION: -4,
  CANT_CHANGE: -5,
  UNKNOWN_FLAG: -6,
  THRESHOLD_OUT_OF_RANGE: -7,
  BAD_SIGNER: -8,
  INVALID_HOME_DOMAIN: -9,
  AUTH_REVOCABLE_REQUIRED: -10,
} as const;

export const CHANGE_TRUST = {
  SUCCESS: 0,
  MALFORMED: -1,
  NO_ISSUER: -2,
  INVALID_LIMIT: -3,
  LOW_RESERVE: -4,
  SELF_NOT_ALLOWED: -5,
  TRUST_LINE_MISSING: -6,
  CANNOT_DELETE: -7,
  NOT_AUTH_MAINTAIN_LIABILITIES: -8,
} as const;

export const ACCOUNT_MERGE = {
  SUCCESS: 0,
  MALFORMED: -1,
  NO_ACCOUNT: -2,
  IMMUTABLE_SET: -3,
  HAS_SUB_ENTRIES: -4,
  SEQNUM_TOO_FAR: -5,
  DEST_FULL: -6,
  IS_SPONSOR: -7,
} as const;

export const MANAGE_DATA = {
  SUCCESS: 0,
  NOT_SUPPORTED_YET: -1,
  NAME_NOT_FOUND: -2,
  LOW_RESERVE: -3,
  INVALID_NAME: -4,
} as const;
export const BUMP_SEQUENCE = { SUCCESS: 0, BAD_SEQ: -1 } as const;
export const BEGIN_SPONSORING = { SUCCESS: 0, MALFORMED: -1, ALREADY_SPONSORED: -2, RECURSIVE: -3 } as const;
export const END_SPONSORING = { SUCCESS: 0, NOT_SPONSORED: -1 } as const;
export const REVOKE_SPONSORSHIP = {
  SUCCESS: 0,
  DOES_NOT_EXIST: -1,
  NOT_SPONSOR: -2,
  LOW_RESERVE: -3,
  ONLY_TRANSFERABLE: -4,
  MALFORMED: -5,
} as const;

/** AccountFlags and TrustLineFlags bits. */
export const ACCOUNT_FLAGS = {
  AUTH_REQUIRED: 1,
  AUTH_REVOCABLE: 2,
  AUTH_IMMUTABLE: 4,
  AUTH_CLAWBACK_ENABLED: 8,
} as const;
export const ALL_ACCOUNT_FLAGS = 1 | 2 | 4 | 8;
export const TRUSTLINE_FLAGS = {
  AUTHORIZED: 1,
  AUTHORIZED_TO_MAINTAIN_LIABILITIES: 2,
  CLAWBACK_ENABLED: 4,
} as const;

/** Protocol limits (stellar-core ACCOUNT_SUBENTRY_LIMIT, MAX_SIGNERS, INT64_MAX). */
export const ACCOUNT_SUBENTRY_LIMIT = 1000;
export const MAX_SIGNERS = 20;
export const INT64_MAX = (1n << 63n) - 1n;
export const UINT32_MAX = 0xffffffff;
