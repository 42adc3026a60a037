// The engine's public types (the contract with the RPC server in src/localnet/).

export interface EngineConfig {
  /** Default testnet: 'Test SDF Network ; September 2015'. */
  networkPassphrase: string;
  /** Stroops, default 5_000_000n (0.5 XLM). */
  baseReserve?: bigint;
  /** Stroops per operation, default 100. */
  baseFee?: number;
  /** Default 23. From 23 on, TransactionMeta is v4 and LedgerCloseMeta v2 (v3 / v1 before). */
  protocolVersion?: number;
  /**
   * Classic operations per ledger (the header's maxTxSetSize), default 1000; the queue holds twice that. Beyond it the
   * queue surge prices (txQueue.ts): a handful here lets a test fill a ledger with a few transactions.
   */
  maxTxSetSize?: number;
  /**
   * Unix seconds "now", used only by submit() for the time-bounds checks (txTOO_LATE/txTOO_EARLY are judged against
   * the next close, as stellar-core does) and for the genesis close time. Default: the system clock. Tests inject one.
   */
  clock?: () => number;
  /** Expected seconds between ledger closes (core rejects maxTime < lastClose + 2 x this + drift). Default 5. */
  expectedLedgerCloseSeconds?: number;
}

export type SubmitStatus = 'PENDING' | 'DUPLICATE' | 'TRY_AGAIN_LATER' | 'ERROR';

export interface SubmitResult {
  status: SubmitStatus;
  /** Hex; the outer hash for fee-bumps. */
  hash: string;
  /**
   * Base64 TransactionResult, only with ERROR. A surge refusal (full queue, bid too low) is a bare txINSUFFICIENT_FEE
   * whose feeCharged is the smallest full fee that would have been accepted.
   */
  errorResultXdr?: string;
}

export interface AppliedTransaction {
  hash: string;
  /** The inner transaction's hash, for fee-bumps. */
  innerHash?: string;
  feeBump: boolean;
  /** 1-based position in the ledger. */
  applicationOrder: number;
  ledger: number;
  /** Close time, unix seconds. */
  createdAt: number;
  successful: boolean;
  envelopeXdr: string;
  /** Base64 TransactionResult. */
  resultXdr: string;
  /** Base64 TransactionMeta (v4 from protocol 23, else v3). */
  resultMetaXdr: string;
  /** The (inner) transaction's source account, G-address. */
  sourceAccount: string;
  feeCharged: bigint;
}

export interface ClosedLedger {
  sequence: number;
  /** Unix seconds. */
  closeTime: number;
  /** Hex sha256 of the LedgerHeader XDR. */
  hash: string;
  /** Base64 LedgerHeader. */
  headerXdr: string;
  /** Base64 LedgerCloseMeta. */
  metadataXdr: string;
  transactions: AppliedTransaction[];
}

export interface EntryRecord {
  /** Base64 LedgerKey (canonical re-encoding of the requested key). */
  keyXdr: string;
  /** Base64 LedgerEntryData. */
  xdr: string;
  /** Base64 LedgerEntry.ext (carries sponsoringID). */
  extXdr: string;
  lastModifiedLedgerSeq: number;
  /** Only for contract data and code. */
  liveUntilLedgerSeq?: number;
}

/** JSON-serializable (strings and numbers only). */
export type EngineSnapshot = { version: 1; [k: string]: unknown };

/** simulateTransaction's outcome for an invokeHostFunction transaction. */
export type SimulationResult =
  | {
      ok: true;
      /** Base64 SorobanTransactionData (footprint, resources, resource fee). */
      transactionDataXdr: string;
      minResourceFee: bigint;
      /** Base64 SorobanAuthorizationEntry values to sign (or those the operation already carried). */
      auth: string[];
      /** Base64 ScVal. */
      returnValueXdr: string;
    }
  | { ok: false; error: string };
