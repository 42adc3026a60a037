// The localnet ledger engine: an in-memory Stellar ledger that validates and applies classic transactions by
// stellar-core's rules (read from stellar-core's TransactionFrame, FeeBumpTransactionFrame, SignatureChecker,
// TransactionQueue, SponsorshipUtils and the *OpFrame sources) and hands out real XDR. Pure: no I/O, no timers.
//
// Modelled:
//   - submission: queue rules (DUPLICATE, TRY_AGAIN_LATER for a second transaction per source, fee-bump replacement
//     at 10x, queued-fee accounting per fee source) and validation in core's order with core's result codes (ERROR
//     results carry feeCharged = baseFee x ops as core reports them);
//   - surge pricing (txQueue.ts, core's TransactionQueue / TxQueueLimiter / SurgePricingUtils): the queue holds
//     2 x maxTxSetSize classic operations; when full, a bid (inclusion fee / operations, a fee-bump counting inner
//     operations + 1) that does not beat the lowest queued rates is ERROR txINSUFFICIENT_FEE with feeCharged = the
//     smallest full fee that would get in, and is banned; a better one evicts the lowest (banned, never applied).
//     Banned hashes answer TRY_AGAIN_LATER for 10 closes; a transaction left out of 4 sets in a row is dropped and
//     banned. A ledger takes everything when it fits (arrival order, base fee), else the best rates first (ties by
//     arrival, gaps filled), applied in that order and all charged the lowest rate included, recorded as the
//     classic component's baseFee (the header's baseFee stays the network's, as in core). One account's
//     transactions never overtake each other (one queued per source);
//   - signatures: ed25519, pre-auth (one-time) and hash(x) and signed-payload signers, weights, LOW/MEDIUM/HIGH
//     thresholds, extra signers, txBAD_AUTH_EXTRA; preconditions v2 (time/ledger bounds, min seq num/age/gap);
//   - application: all fees first, then per transaction re-validation, sequence bump, operations each in a nested
//     ledger transaction, txFAILED / txBAD_SPONSORSHIP roll back everything but fee and sequence;
//   - operations: createAccount, payment, pathPaymentStrictReceive/StrictSend (same asset only, see below),
//     changeTrust, setOptions, manageData, bumpSequence, accountMerge, begin/endSponsoringFutureReserves and
//     revokeSponsorship (accounts, trust lines, data, signers), with CAP-33 sponsorship counters and reserves;
//   - output: TransactionResult, TransactionMeta (v4 from protocol 23, v3 before), LedgerHeader (hash = sha256 of
//     its XDR), LedgerCloseMeta (v2 from 23, v1 before), LedgerEntryData / LedgerEntry.ext for getLedgerEntries;
//   - CAP-67 unified events (protocol 23, unifiedEvents.ts): transfer / mint / burn on the asset's SAC contract id for
//     payment, both path payments, createAccount and accountMerge (to_muxed_id from a muxed destination or the
//     memo), and each transaction's `fee` event (stage BEFORE_ALL_TXS), in TransactionMeta v4;
//   - contracts: installContract stores ContractCode + a persistent instance entry (never executed);
//     sorobanAuth.ts verifies signed SorobanAuthorizationEntries (legacy and V2 payloads);
//   - Soroban transactions: invokeHostFunction uploading WASM, creating contracts from an account address,
//     deploying a classic asset's Stellar Asset Contract and invoking its balance / decimals / name / symbol /
//     transfer / mint / burn (with their events) (sorobanHost.ts, sorobanAssetContract.ts), with the Soroban
//     data checks (footprint, declared resources, resource fee), source-account and address-credential
//     authorization (signature, expiration, nonce consumed), return value in the meta, and simulate() answering
//     footprint, resources, resource fee and the entries to sign (simulate.ts);
//
// Not modelled (never silently accepted):
//   - order books and liquidity pools: a path payment needing a conversion fails with TOO_FEW_OFFERS (-10);
//   - operations manageSellOffer/BuyOffer, createPassiveSellOffer, claimable balances, allowTrust /
//     setTrustLineFlags, clawback, liquidity pools, inflation, extendFootprintTtl, restoreFootprint, and
//     invokeHostFunction invoking WASM contract code or the SAC's other functions: opNOT_SUPPORTED inside
//     txFAILED, answered at submission (ERROR); the declared resource fee is charged in full (no refund, so no
//     refund `fee` event); hence no CAP-67 events of claims, clawbacks, trades or set_authorized either;
//   - pool-share trust lines (opNOT_SUPPORTED); claimable balances, so revokeSponsorship's ONLY_TRANSFERABLE
//     cannot occur; there is no bucket list (bucketListHash chains result hashes);
//   - Soroban transactions' own queue and resource limits: they are outside the classic operation limit (never
//     evicted nor evicting, always in the next set, after the classic ones when that set is surge priced); core's
//     hash-shuffled apply order (localnet applies in arrival order, or the surge set's order); core's ban of applied
//     transactions (localnet validates a resubmitted applied one again: ERROR txBAD_SEQ, where core answers
//     TRY_AGAIN_LATER for 10 ledgers).

export { LedgerEngine, TOTAL_COINS } from './ledger';
export { EngineInputError } from './errors';
export type {
  AppliedTransaction,
  ClosedLedger,
  EngineConfig,
  EngineSnapshot,
  EntryRecord,
  SimulationResult,
  SubmitResult,
  SubmitStatus,
} from './types';
export { DEFAULT_MAX_ENTRY_TTL, verifyAuthEntrySignature } from './sorobanAuth';
export type { AuthEntryVerification, AuthFailureReason, AuthVerificationOptions } from './sorobanAuth';
