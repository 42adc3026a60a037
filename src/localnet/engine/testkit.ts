// Test support for the engine: builds and signs transactions with the SDK's TransactionBuilder, submits them,
// closes ledgers on demand, and decodes every XDR the engine produces with the SDK to prove it is valid.
// Used only by the *.test.ts files beside it.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  Account,
  FeeBumpTransaction,
  Keypair,
  type Memo,
  Networks,
  type Transaction,
  TransactionBuilder,
  Operation,
  TimeoutInfinite,
  xdr,
} from '@stellar/stellar-sdk';
import { RESULT_ARM } from './codes';
import { LedgerEngine } from './ledger';
import type { AppliedTransaction, ClosedLedger, EngineConfig, SubmitResult } from './types';

export const PASSPHRASE = Networks.TESTNET;
export const XLM = 10_000_000n;

export interface DecodedResult {
  feeCharged: bigint;
  /** Outer TransactionResultCode. */
  tx: number;
  /** For fee-bumps: the inner transaction's code. */
  inner?: number;
  /** Per operation: [OperationResultCode, inner code (opINNER only)]. */
  ops: [number, number | undefined][];
}

/** Decodes a TransactionResult both ways: with the SDK's class (validity) and as a wire object (numeric codes). */
export function decodeResult(resultXdr: string): DecodedResult {
  xdr.TransactionResult.fromXdr(resultXdr, 'base64');
  const wire = xdr.TransactionResult.schema.decode(new Uint8Array(Buffer.from(resultXdr, 'base64')));
  const opsOf = (r: { code: number; results?: xdr.OperationResultWire[] }): DecodedResult['ops'] =>
    (r.results ?? []).map((op) => {
      if (op.code !== 0) return [op.code, undefined];
      const arm = RESULT_ARM[op.tr.type] as string;
      return [0, (op.tr as unknown as Record<string, { code: number }>)[arm]?.code];
    });
  const result = wire.result as unknown as {
    code: number;
    results?: xdr.OperationResultWire[];
    innerResultPair?: { result: { result: { code: number; results?: xdr.OperationResultWire[] } } };
  };
  if (result.innerResultPair) {
    const inner = result.innerResultPair.result.result;
    return { feeCharged: wire.feeCharged, tx: result.code, inner: inner.code, ops: opsOf(inner) };
  }
  return { feeCharged: wire.feeCharged, tx: result.code, ops: opsOf(result) };
}

export interface TxOptions {
  /** Per-operation fee (stroops, as TransactionBuilder's `fee`). Default 100. */
  fee?: number;
  /** Who signs; default [source]. */
  signers?: Keypair[];
  /** Sequence number to use; default the account's current + 1. */
  seq?: bigint;
  timeBounds?: { minTime: number; maxTime: number };
  memo?: Memo;
}

export class Harness {
  readonly engine: LedgerEngine;
  readonly root: Keypair;
  now = Math.floor(Date.now() / 1000);

  constructor(config: Partial<EngineConfig> = {}) {
    this.engine = new LedgerEngine({ networkPassphrase: PASSPHRASE, clock: () => this.now, ...config });
    this.root = this.engine.rootKeypair();
  }

  /** The account's current entry, decoded by the SDK, or undefined. */
  account(id: string): xdr.AccountEntry | undefined {
    const key = xdr.LedgerKey.schema.encode({
      type: 0,
      account: { accountId: { type: 0, ed25519: Keypair.fromPublicKey(id).rawPublicKey() } },
    });
    const entry = this.engine.getLedgerEntry(Buffer.from(key).toString('base64'));
    if (!entry) return undefined;
    const data = xdr.LedgerEntryData.fromXdr(entry.xdr, 'base64');
    assert.equal(data.type, 'account');
    return data.account;
  }

  balance(id: string): bigint {
    const acc = this.account(id);
    assert.ok(acc, `account ${id} exists`);
    return acc.balance;
  }

  seq(id: string): bigint {
    const acc = this.account(id);
    assert.ok(acc, `account ${id} exists`);
    return acc.seqNum;
  }

  build(source: Keypair | string, ops: xdr.Operation[], opts: TxOptions = {}): Transaction {
    const id = typeof source === 'string' ? source : source.publicKey();
    const seq = opts.seq ?? this.seq(id) + 1n;
    const builder = new TransactionBuilder(new Account(id, (seq - 1n).toString()), {
      fee: String(opts.fee ?? 100),
      networkPassphrase: PASSPHRASE,
    });
    for (const op of ops) builder.addOperation(op);
    if (opts.memo) builder.addMemo(opts.memo);
    if (opts.timeBounds) builder.setTimebounds(opts.timeBounds.minTime, opts.timeBounds.maxTime);
    else builder.setTimeout(TimeoutInfinite);
    const tx = builder.build();
    const signers = opts.signers ?? (typeof source === 'string' ? [] : [source]);
    tx.sign(...signers);
    return tx;
  }

  feeBump(feeSource: Keypair, inner: Transaction, baseFee = 200, signers: Keypair[] = [feeSource]): FeeBumpTransaction {
    const fb = TransactionBuilder.buildFeeBumpTransaction(feeSource.publicKey(), String(baseFee), inner, PASSPHRASE);
    fb.sign(...signers);
    return fb;
  }

  submit(tx: Transaction | FeeBumpTransaction | string): SubmitResult {
    return this.engine.submit(typeof tx === 'string' ? tx : tx.toXDR());
  }

  /** Closes a ledger 5 s later and checks that every XDR it produced decodes with the SDK. */
  close(): ClosedLedger {
    this.now += 5;
    const ledger = this.engine.closeLedger(this.now);
    checkLedgerXdr(ledger);
    return ledger;
  }

  /** Submits (expecting PENDING), closes, and returns the applied transaction with its decoded result. */
  apply(tx: Transaction | FeeBumpTransaction): AppliedTransaction & { decoded: DecodedResult } {
    const sub = this.submit(tx);
    assert.equal(
      sub.status,
      'PENDING',
      `submission: ${show(sub)} ${sub.errorResultXdr ? show(decodeResult(sub.errorResultXdr)) : ''}`,
    );
    const ledger = this.close();
    const applied = ledger.transactions.find((t) => t.hash === sub.hash);
    assert.ok(applied, 'transaction applied in the next ledger');
    return { ...applied, decoded: decodeResult(applied.resultXdr) };
  }

  /** Builds, applies and returns the decoded result. */
  run(source: Keypair, ops: xdr.Operation[], opts: TxOptions = {}): AppliedTransaction & { decoded: DecodedResult } {
    return this.apply(this.build(source, ops, opts));
  }

  /** A new account funded by root with `xlm` lumens. */
  fund(xlm = 1000n, kp = Keypair.random()): Keypair {
    const r = this.run(this.root, [
      Operation.createAccount({ destination: kp.publicKey(), startingBalance: xlm.toString() }),
    ]);
    assert.equal(r.successful, true, 'funding succeeded');
    return kp;
  }
}

/** Every XDR of a closed ledger must decode with the SDK. */
export function checkLedgerXdr(ledger: ClosedLedger): void {
  const header = xdr.LedgerHeader.fromXdr(ledger.headerXdr, 'base64');
  assert.equal(header.ledgerSeq, ledger.sequence);
  const meta = xdr.LedgerCloseMeta.fromXdr(ledger.metadataXdr, 'base64');
  assert.ok(meta);
  for (const t of ledger.transactions) {
    xdr.TransactionEnvelope.fromXdr(t.envelopeXdr, 'base64');
    xdr.TransactionResult.fromXdr(t.resultXdr, 'base64');
    xdr.TransactionMeta.fromXdr(t.resultMetaXdr, 'base64');
  }
}

/** [OperationResultCode, inner code] of an operation that reached its own result (opINNER). */
export const inner = (code: number): [number, number | undefined] => [0, code];
/** An operation-level failure (opBAD_AUTH, opNO_ACCOUNT, opNOT_SUPPORTED...). */
export const opLevel = (code: number): [number, number | undefined] => [code, undefined];

export function entryKey(wire: xdr.LedgerKeyWire): string {
  return Buffer.from(xdr.LedgerKey.schema.encode(wire)).toString('base64');
}

/** A signed envelope assembled from wire objects, for inputs the SDK's builder refuses to produce. */
export function rawEnvelope(h: Harness, source: Keypair, operations: xdr.OperationWire[], seq?: bigint): string {
  const tx: xdr.TransactionWire = {
    sourceAccount: { type: 0, ed25519: source.rawPublicKey() },
    fee: 100 * Math.max(1, operations.length),
    seqNum: seq ?? h.seq(source.publicKey()) + 1n,
    cond: { type: 0 },
    memo: { type: 0 },
    operations,
    ext: { v: 0 },
  };
  const networkId = createHash('sha256').update(PASSPHRASE).digest();
  const hash = createHash('sha256')
    .update(xdr.TransactionSignaturePayload.schema.encode({ networkId, taggedTransaction: { type: 2, tx } }))
    .digest();
  const signature = { hint: source.signatureHint(), signature: source.sign(hash) };
  return Buffer.from(xdr.TransactionEnvelope.schema.encode({ type: 2, v1: { tx, signatures: [signature] } })).toString(
    'base64',
  );
}

/** JSON for assertion messages (bigints as strings). */
export function show(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
}
