// The localnet ledger engine: an in-memory Stellar ledger that validates and applies classic transactions by
// stellar-core's rules (read from stellar-core's TransactionFrame, FeeBumpTransactionFrame, SignatureChecker,
// TransactionQueue, SponsorshipUtils and the *OpFrame sources) and hands out real XDR. Pure: no I/O, no timers.
//
// Modelled:
//   - submission: queue rules (DUPLICATE, TRY_AGAIN_LATER for a second transaction per source, fee-bump replacement
//     at 10x, queued-fee accounting per fee source, queue capacity 2 x maxTxSetSize operations) and validation in
//     core's order with core's result codes (ERROR results carry feeCharged = baseFee x ops as core reports them);
//   - signatures: ed25519, pre-auth (one-time) and hash(x) and signed-payload signers, weights, LOW/MEDIUM/HIGH
//     thresholds, extra signers, txBAD_AUTH_EXTRA; preconditions v2 (time/ledger bounds, min seq num/age/gap);
//   - application: all fees first, then per transaction re-validation, sequence bump, operations each in a nested
//     ledger transaction, txFAILED / txBAD_SPONSORSHIP roll back everything but fee and sequence;
//   - operations: createAccount, payment, pathPaymentStrictReceive/StrictSend (same asset only, see below),
//     changeTrust, setOptions, manageData, bumpSequence, accountMerge, begin/endSponsoringFutureReserves and
//     revokeSponsorship (accounts, trust lines, data, signers), with CAP-33 sponsorship counters and reserves;
//   - output: TransactionResult, TransactionMeta (v4 from protocol 23, v3 before), LedgerHeader (hash = sha256 of
//     its XDR), LedgerCloseMeta (v2 from 23, v1 before), LedgerEntryData / LedgerEntry.ext for getLedgerEntries;
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
//     txFAILED, answered at submission (ERROR); the declared resource fee is charged in full (no refund);
//   - pool-share trust lines (opNOT_SUPPORTED); claimable balances, so revokeSponsorship's ONLY_TRANSFERABLE
//     cannot occur; CAP-67 classic and fee events are not emitted; there is no bucket list (bucketListHash chains
//     result hashes);
//   - surge pricing: transactions are applied in submission order, charged min(fee, baseFee x ops).

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
