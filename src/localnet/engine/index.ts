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
//     sorobanAuth.ts verifies signed SorobanAuthorizationEntries (legacy and V2 payloads).
//
// Not modelled (never silently accepted):
//   - order books and liquidity pools: a path payment needing a conversion fails with TOO_FEW_OFFERS (-10);
//   - operations manageSellOffer/BuyOffer, createPassiveSellOffer, claimable balances, allowTrust /
//     setTrustLineFlags, clawback, liquidity pools, inflation, invokeHostFunction, extendFootprintTtl,
//     restoreFootprint: opNOT_SUPPORTED inside txFAILED, answered at submission (ERROR);
//   - pool-share trust lines (opNOT_SUPPORTED); claimable balances, so revokeSponsorship's ONLY_TRANSFERABLE
//     cannot occur; events (CAP-67) are not emitted; there is no bucket list (bucketListHash chains result hashes);
//   - surge pricing: transactions are applied in submission order, charged min(fee, baseFee x ops).

export { LedgerEngine, TOTAL_COINS } from './ledger';
export { EngineInputError } from './errors';
export type {
  AppliedTransaction,
  ClosedLedger,
  EngineConfig,
  EngineSnapshot,
  EntryRecord,
  SubmitResult,
  SubmitStatus,
} from './types';
export { DEFAULT_MAX_ENTRY_TTL, verifyAuthEntrySignature } from './sorobanAuth';
export type { AuthEntryVerification, AuthFailureReason, AuthVerificationOptions } from './sorobanAuth';
