// LedgerEngine: the in-memory ledger. Pure (no I/O, no timers): the RPC layer decides when ledgers close.
//
// submit() runs stellar-core's TransactionQueue::canAdd (with the surge-pricing limiter of txQueue.ts) and checkValid
// against the last closed ledger; closeLedger() builds the transaction set (all of the queue, or the best bids when
// it holds more than maxTxSetSize classic operations), charges every fee, applies each transaction, and produces the
// LedgerHeader, TransactionResult/TransactionMeta (with CAP-67 events) per transaction and the LedgerCloseMeta, all as
// real XDR.

import { Keypair, xdr } from '@stellar/stellar-sdk';
import { chargeFee, applyTransaction } from './apply';
import { TX } from './codes';
import { buildContractInstall } from './contracts';
import { encodeLedgerEntryData, encodeLedgerEntryExt, fromHex, stateKeyFromLedgerKey, toBase64, toHex } from './encode';
import { type ParsedEnvelope, networkIdOf, parseEnvelope } from './envelope';
import { EngineInputError } from './errors';
import {
  type HeaderFields,
  type ProcessedTx,
  ledgerCloseMetaWire,
  ledgerEntryChanges,
  ledgerHeaderWire,
  sha256,
  transactionMetaWire,
  transactionSetWire,
} from './meta';
import { newAccountRecord } from './operations/common';
import { type HeaderView, availableBalance } from './reserves';
import { TxResult } from './results';
import { TransactionQueue, isDuplicate, isSorobanTx, replaceByFeeMinimum } from './txQueue';
import { feeEvent } from './unifiedEvents';
import { deserializeRecord, serializeRecord } from './snapshot';
import { RootState, contractKey, isLedgerRecord, keyOf } from './state';
import type {
  AppliedTransaction,
  ClosedLedger,
  EngineConfig,
  EngineSnapshot,
  EntryRecord,
  SimulationResult,
  SubmitResult,
} from './types';
import { simulateEnvelope } from './simulate';
import { checkValid, getAccountRecord } from './validate';

/** 100 billion XLM in stroops: the genesis supply, all held by the root account. */
export const TOTAL_COINS = 1_000_000_000_000_000_000n;

interface LastClosed {
  sequence: number;
  closeTime: number;
  hash: Uint8Array;
  headerXdr: string;
  metadataXdr: string;
  feePool: bigint;
  bucketListHash: Uint8Array;
}

export class LedgerEngine {
  readonly networkPassphrase: string;
  readonly baseFee: number;
  readonly baseReserve: bigint;
  readonly protocolVersion: number;
  /** Classic operations one ledger takes (a larger transaction is never accepted). */
  readonly maxTxSetSize: number;
  private readonly networkId: Uint8Array;
  private readonly clock: () => number;
  private readonly expectedCloseSeconds: number;
  private readonly state = new RootState();
  private lcl: LastClosed;
  /** Pending transactions: at most one per (inner) source account, surge priced when full (txQueue.ts). */
  private readonly queue: TransactionQueue;

  constructor(config: EngineConfig, snapshot?: EngineSnapshot) {
    this.networkPassphrase = config.networkPassphrase;
    this.baseFee = config.baseFee ?? 100;
    this.baseReserve = config.baseReserve ?? 5_000_000n;
    this.protocolVersion = config.protocolVersion ?? 23;
    this.maxTxSetSize = config.maxTxSetSize ?? 1000;
    if (!Number.isInteger(this.maxTxSetSize) || this.maxTxSetSize < 1)
      throw new EngineInputError(`maxTxSetSize must be a positive integer, got ${String(config.maxTxSetSize)}`);
    this.queue = new TransactionQueue(this.maxTxSetSize);
    this.clock = config.clock ?? (() => Math.floor(Date.now() / 1000));
    this.expectedCloseSeconds = config.expectedLedgerCloseSeconds ?? 5;
    this.networkId = networkIdOf(this.networkPassphrase);
    if (snapshot) {
      this.lcl = this.restore(snapshot);
    } else {
      this.lcl = this.genesis();
    }
  }

  /** The root account (secret seed = network id), which holds the whole supply at genesis. */
  rootKeypair(): Keypair {
    return Keypair.master(this.networkPassphrase);
  }

  pendingCount(): number {
    return this.queue.size;
  }

  latestLedger(): Omit<ClosedLedger, 'transactions'> {
    return {
      sequence: this.lcl.sequence,
      closeTime: this.lcl.closeTime,
      hash: toHex(this.lcl.hash),
      headerXdr: this.lcl.headerXdr,
      metadataXdr: this.lcl.metadataXdr,
    };
  }

  // ---- submission ---------------------------------------------------------------------------------------------

  /**
   * sendTransaction, in stellar-core's order: a banned hash is TRY_AGAIN_LATER; the per-account queue rules; the
   * surge-pricing limiter (a full queue refuses a bid that does not beat the lowest queued rates with
   * txINSUFFICIENT_FEE naming the full fee that would, and bans it; a better bid evicts and bans them); then
   * validation against the last closed ledger and the fee source's balance.
   */
  submit(envelopeXdr: string): SubmitResult {
    const parsed = parseEnvelope(envelopeXdr, this.networkId);
    const hash = parsed.hash;
    const error = (res: TxResult): SubmitResult => ({ status: 'ERROR', hash, errorResultXdr: res.toXdr() });
    const insufficientFee = (minFee: bigint): SubmitResult => error(TxResult.error(TX.INSUFFICIENT_FEE, minFee));

    if (this.queue.isBanned(parsed.fullHash)) return { status: 'TRY_AGAIN_LATER', hash };
    if (parsed.fullFee < 0n) return error(TxResult.error(TX.MALFORMED));

    const current = this.queue.queued(parsed.inner.source);
    if (current) {
      if (isDuplicate(current, parsed)) return { status: 'DUPLICATE', hash };
      if (parsed.inner.seqNum < current.inner.seqNum) return error(TxResult.error(TX.BAD_SEQ));
      // One transaction per source account per ledger; only a fee-bump of the same sequence number may replace it.
      if (!parsed.feeBump || parsed.inner.seqNum !== current.inner.seqNum) return { status: 'TRY_AGAIN_LATER', hash };
      const minFee = replaceByFeeMinimum(parsed, current);
      if (minFee !== undefined) return insufficientFee(minFee);
    }

    // A transaction bigger than a whole ledger could never be included.
    if (parsed.feeOps > this.maxTxSetSize) return { status: 'TRY_AGAIN_LATER', hash };
    const admission = this.queue.admit(parsed, current);
    if (!admission.ok) {
      // Core bans what it refuses here, so the same envelope is TRY_AGAIN_LATER for a while; a higher bid is a new one.
      this.queue.ban(parsed.fullHash);
      return admission.minFee === undefined ? { status: 'TRY_AGAIN_LATER', hash } : insufficientFee(admission.minFee);
    }

    const validation = checkValid(
      parsed,
      { state: this.state, header: this.lclHeader() },
      this.submissionTimeOptions(),
    );
    if (!validation.isSuccess()) return error(validation);

    // The fee source must afford this fee on top of every fee it already has queued.
    const feeSource = getAccountRecord(this.state, parsed.feeSource);
    let newFee = parsed.fullFee;
    if (current && current.feeSource === parsed.feeSource) newFee -= current.fullFee;
    if (
      !feeSource ||
      availableBalance(this.lclHeader(), feeSource) - newFee < this.queue.queuedFees(parsed.feeSource)
    ) {
      return error(TxResult.error(TX.INSUFFICIENT_BALANCE));
    }

    this.queue.add(parsed, current, admission.evict);
    return { status: 'PENDING', hash };
  }

  private lclHeader(): HeaderView {
    return {
      ledgerSeq: this.lcl.sequence,
      closeTime: this.lcl.closeTime,
      baseFee: this.baseFee,
      baseReserve: this.baseReserve,
      protocolVersion: this.protocolVersion,
      networkPassphrase: this.networkPassphrase,
    };
  }

  /** Core checks time bounds against the next close: lastClose + 2 x expected close time + the drift since. */
  private submissionTimeOptions() {
    const now = this.clock();
    const drift = Math.max(0, now - this.lcl.closeTime);
    return {
      lowerBoundOffset: 0,
      // whole seconds: ledger times are integers, and a sub-second cadence (LOCALNET_LEDGER_SECONDS=0.4) must not
      // reach the BigInt time-bound arithmetic as a fraction
      upperBoundOffset: Math.ceil(this.expectedCloseSeconds * 2) + drift,
      validationLedgerSeq: this.lcl.sequence + 1,
    };
  }

  // ---- ledger close -------------------------------------------------------------------------------------------

  /** Applies the queued transactions (up to maxTxSetSize operations) and closes the next ledger. */
  closeLedger(closeTime: number): ClosedLedger {
    const sequence = this.lcl.sequence + 1;
    // Close times never go backwards.
    const time = Math.max(Math.floor(closeTime), this.lcl.closeTime);
    const header: HeaderView = {
      ledgerSeq: sequence,
      closeTime: time,
      baseFee: this.baseFee,
      baseReserve: this.baseReserve,
      protocolVersion: this.protocolVersion,
      networkPassphrase: this.networkPassphrase,
    };

    // The set: the whole queue, or (surge) the best bids up to maxTxSetSize classic operations, in application order.
    const plan = this.queue.plan(BigInt(this.baseFee));
    const selected = plan.txs;
    const baseFeeOf = (parsed: ParsedEnvelope): bigint =>
      isSorobanTx(parsed) ? BigInt(this.baseFee) : plan.classicBaseFee;

    // Phase 1: every fee, before any transaction is applied.
    const charges = selected.map((parsed) => chargeFee(parsed, this.state, header, baseFeeOf(parsed)));
    const feePool = charges.reduce((sum, c) => sum + c.charged, this.lcl.feePool);

    // Phase 2: each transaction in turn.
    const processed: ProcessedTx[] = [];
    const transactions: AppliedTransaction[] = [];
    selected.forEach((parsed, i) => {
      const charge = charges[i] as (typeof charges)[number];
      const outcome = applyTransaction(parsed, this.state, header, charge.result);
      const fee = feeEvent(this.networkId, parsed.feeSource, charge.charged);
      const meta = transactionMetaWire(
        this.protocolVersion,
        outcome.txChangesBefore,
        outcome.operationChanges,
        outcome.soroban,
        outcome.operationEvents,
        fee ? [fee] : [],
      );
      const resultWire = charge.result.toWire();
      processed.push({
        hash: fromHex(parsed.hash),
        result: resultWire,
        feeProcessing: ledgerEntryChanges(charge.changes),
        meta,
      });
      transactions.push({
        hash: parsed.hash,
        ...(parsed.feeBump ? { innerHash: parsed.inner.hash } : {}),
        feeBump: parsed.feeBump !== undefined,
        applicationOrder: i + 1,
        ledger: sequence,
        createdAt: time,
        successful: outcome.successful,
        envelopeXdr: parsed.envelopeXdr,
        resultXdr: toBase64(xdr.TransactionResult.schema.encode(resultWire)),
        resultMetaXdr: toBase64(xdr.TransactionMeta.schema.encode(meta)),
        sourceAccount: parsed.inner.source,
        feeCharged: charge.result.feeCharged,
      });
    });

    const txSet = transactionSetWire(
      this.protocolVersion,
      this.lcl.hash,
      { txs: selected.filter((p) => !isSorobanTx(p)), baseFee: plan.classicBaseFee },
      { txs: selected.filter(isSorobanTx), baseFee: BigInt(this.baseFee) },
    );
    const txSetHash = sha256(xdr.GeneralizedTransactionSet.schema.encode(txSet));
    const txSetResultHash = sha256(
      xdr.TransactionResultSet.schema.encode({
        results: processed.map((p) => ({ transactionHash: p.hash, result: p.result })),
      }),
    );
    // There is no bucket list; this hash chains the results so that every ledger's value is distinct and stable.
    const bucketListHash = sha256(Buffer.concat([this.lcl.bucketListHash, txSetResultHash]));
    const closed = this.seal(
      {
        ledgerVersion: this.protocolVersion,
        previousLedgerHash: this.lcl.hash,
        txSetHash,
        closeTime: time,
        txSetResultHash,
        bucketListHash,
        ledgerSeq: sequence,
        totalCoins: TOTAL_COINS,
        feePool,
        baseFee: this.baseFee,
        baseReserve: Number(this.baseReserve),
        maxTxSetSize: this.maxTxSetSize,
      },
      txSet,
      processed,
    );

    // What did not fit stays queued for a few ledgers, if it is still valid against the new one (core re-checks
    // its queue too, and bans what it drops).
    this.queue.afterClose(new Set(selected), (parsed) =>
      checkValid(parsed, { state: this.state, header: this.lclHeader() }, this.submissionTimeOptions()).isSuccess(),
    );
    return { ...closed, transactions };
  }

  private seal(
    fields: HeaderFields,
    txSet: xdr.GeneralizedTransactionSetWire,
    processed: ProcessedTx[],
  ): Omit<ClosedLedger, 'transactions'> {
    const headerWire = ledgerHeaderWire(fields);
    const headerBytes = xdr.LedgerHeader.schema.encode(headerWire);
    const hash = sha256(headerBytes);
    const lcm = ledgerCloseMetaWire(this.protocolVersion, headerWire, hash, txSet, processed);
    this.lcl = {
      sequence: fields.ledgerSeq,
      closeTime: fields.closeTime,
      hash,
      headerXdr: toBase64(headerBytes),
      metadataXdr: toBase64(xdr.LedgerCloseMeta.schema.encode(lcm)),
      feePool: fields.feePool,
      bucketListHash: fields.bucketListHash,
    };
    return this.latestLedger();
  }

  private genesis(): LastClosed {
    const root = newAccountRecord(this.rootKeypair().publicKey(), TOTAL_COINS, 0n);
    root.lastModified = 1;
    this.state.put(keyOf(root), root);
    const zero = new Uint8Array(32);
    const none = { txs: [], baseFee: BigInt(this.baseFee) };
    const txSet = transactionSetWire(this.protocolVersion, zero, none, none);
    this.seal(
      {
        ledgerVersion: this.protocolVersion,
        previousLedgerHash: zero,
        txSetHash: sha256(xdr.GeneralizedTransactionSet.schema.encode(txSet)),
        closeTime: this.clock(),
        txSetResultHash: sha256(xdr.TransactionResultSet.schema.encode({ results: [] })),
        bucketListHash: zero,
        ledgerSeq: 1,
        totalCoins: TOTAL_COINS,
        feePool: 0n,
        baseFee: this.baseFee,
        baseReserve: Number(this.baseReserve),
        maxTxSetSize: this.maxTxSetSize,
      },
      txSet,
      [],
    );
    return this.lcl;
  }

  // ---- reads and out-of-band changes ---------------------------------------------------------------------------

  /** getLedgerEntries for one key: the current state, or undefined when absent. */
  getLedgerEntry(keyXdr: string): EntryRecord | undefined {
    const { key, canonical } = stateKeyFromLedgerKey(keyXdr);
    if (!key) return undefined;
    const record = this.state.get(key);
    if (!record || !isLedgerRecord(record)) return undefined;
    if (record.kind === 'contract') {
      return {
        keyXdr: canonical,
        xdr: record.dataXdr,
        extXdr: encodeLedgerEntryExt(record),
        lastModifiedLedgerSeq: record.lastModified,
        liveUntilLedgerSeq: record.liveUntil,
      };
    }
    return {
      keyXdr: canonical,
      xdr: encodeLedgerEntryData(record),
      extXdr: encodeLedgerEntryExt(record),
      lastModifiedLedgerSeq: record.lastModified,
    };
  }

  /** simulateTransaction: runs the envelope's invokeHostFunction in recording mode against the current state. */
  simulate(envelopeXdr: string): SimulationResult {
    const parsed = parseEnvelope(envelopeXdr, this.networkId);
    return simulateEnvelope(parsed, this.state, { ...this.lclHeader(), networkPassphrase: this.networkPassphrase });
  }

  /** Stores a contract's code and instance entries (see contracts.ts for how the id is derived). */
  installContract(wasm: Buffer, opts?: { salt?: Buffer }): { contractId: string; wasmHash: string } {
    const installed = buildContractInstall(
      new Uint8Array(wasm),
      this.networkId,
      this.rootKeypair().publicKey(),
      this.lcl.sequence,
      opts?.salt ? new Uint8Array(opts.salt) : undefined,
    );
    for (const record of installed.records) this.state.put(contractKey(record.keyXdr), record);
    return { contractId: installed.contractId, wasmHash: installed.wasmHash };
  }

  // ---- persistence ----------------------------------------------------------------------------------------------

  snapshot(): EngineSnapshot {
    const entries: unknown[] = [];
    for (const record of this.state.entries.values()) {
      if (isLedgerRecord(record)) entries.push(serializeRecord(record));
    }
    return {
      version: 1,
      networkPassphrase: this.networkPassphrase,
      ledger: {
        sequence: this.lcl.sequence,
        closeTime: this.lcl.closeTime,
        hash: toHex(this.lcl.hash),
        headerXdr: this.lcl.headerXdr,
        metadataXdr: this.lcl.metadataXdr,
        feePool: this.lcl.feePool.toString(),
        bucketListHash: toHex(this.lcl.bucketListHash),
      },
      entries,
      pending: this.queue.envelopes(),
    };
  }

  private restore(snapshot: EngineSnapshot): LastClosed {
    if (snapshot.version !== 1) throw new EngineInputError(`unsupported snapshot version ${String(snapshot.version)}`);
    if (snapshot.networkPassphrase !== this.networkPassphrase) {
      throw new EngineInputError(
        `snapshot is for network "${String(snapshot.networkPassphrase)}", not "${this.networkPassphrase}"`,
      );
    }
    const ledger = snapshot.ledger as Record<string, unknown> | undefined;
    if (!ledger || typeof ledger !== 'object' || !Array.isArray(snapshot.entries)) {
      throw new EngineInputError('snapshot has no ledger or entries');
    }
    for (const raw of snapshot.entries as Record<string, unknown>[]) {
      const record = deserializeRecord(raw);
      this.state.put(keyOf(record), record);
    }
    const lcl: LastClosed = {
      sequence: Number(ledger.sequence),
      closeTime: Number(ledger.closeTime),
      hash: fromHex(String(ledger.hash)),
      headerXdr: String(ledger.headerXdr),
      metadataXdr: String(ledger.metadataXdr),
      feePool: BigInt(String(ledger.feePool)),
      bucketListHash: fromHex(String(ledger.bucketListHash)),
    };
    this.lcl = lcl;
    // Pending transactions go back through submission; any that are no longer valid are dropped.
    for (const envelope of (snapshot.pending as string[] | undefined) ?? []) {
      try {
        this.submit(envelope);
      } catch {
        // an envelope that no longer decodes is dropped like an invalid one
      }
    }
    return lcl;
  }
}
