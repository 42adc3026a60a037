// Decoding a TransactionEnvelope into what validation and application need: sources, fees, preconditions,
// operations, signatures and the hashes (contents hash = what is signed and what RPC reports; full hash = the
// whole envelope, which the queue uses to recognise a resubmission).

import { createHash } from 'node:crypto';
import { xdr } from '@stellar/stellar-sdk';
import { EngineInputError } from './errors';
import { accountIdFromMuxed, toBase64, toHex } from './encode';

export interface TimeBounds {
  minTime: bigint;
  maxTime: bigint;
}

/** A classic transaction (a plain envelope, or the inner transaction of a fee-bump). */
export interface ParsedTx {
  envelopeType: 0 | 2;
  source: string;
  sourceMuxed: xdr.MuxedAccountWire;
  /** Declared fee (uint32), stroops. */
  fee: bigint;
  seqNum: bigint;
  /** CAP-67 events carry it as the destination's muxed id. */
  memo: xdr.MemoWire;
  timeBounds?: TimeBounds;
  ledgerBounds?: { minLedger: number; maxLedger: number };
  minSeqNum?: bigint;
  minSeqAge: bigint;
  minSeqLedgerGap: number;
  extraSigners: xdr.SignerKeyWire[];
  operations: xdr.OperationWire[];
  signatures: xdr.DecoratedSignatureWire[];
  /** Transaction.ext discriminant (1 = Soroban data attached). */
  extV: number;
  /** The Soroban resources and resource fee (Transaction.ext.sorobanData), when attached. */
  sorobanData?: xdr.SorobanTransactionDataWire;
  /** Bytes of the whole envelope as submitted (what the network's transaction-size fee is charged on). */
  envelopeSize: number;
  networkId: Uint8Array;
  contentsHash: Uint8Array;
  hash: string;
  fullHash: string;
}

export interface ParsedFeeBump {
  feeSource: string;
  fee: bigint;
  signatures: xdr.DecoratedSignatureWire[];
  contentsHash: Uint8Array;
}

export interface ParsedEnvelope {
  /** Canonical base64 of the envelope. */
  envelopeXdr: string;
  envelope: xdr.TransactionEnvelopeWire;
  inner: ParsedTx;
  feeBump?: ParsedFeeBump;
  /** Hex contents hash (the outer one for fee-bumps). */
  hash: string;
  /** Hex sha256 of the whole envelope XDR. */
  fullHash: string;
  /** Operations counted for fees: inner operations, plus one for a fee-bump. */
  feeOps: number;
  /** The full declared fee (outer fee for fee-bumps). */
  fullFee: bigint;
  /** Who pays: the fee-bump's fee source or the transaction source. */
  feeSource: string;
}

const sha256 = (data: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(data).digest());

export function networkIdOf(passphrase: string): Uint8Array {
  return sha256(Buffer.from(passphrase, 'utf8'));
}

function contentsHashOfTx(networkId: Uint8Array, tx: xdr.TransactionWire): Uint8Array {
  return sha256(xdr.TransactionSignaturePayload.schema.encode({ networkId, taggedTransaction: { type: 2, tx } }));
}

/** v0 envelopes are hashed as the equivalent v1 transaction, as core does. */
function v0ToV1(tx: xdr.TransactionV0Wire): xdr.TransactionWire {
  return {
    sourceAccount: { type: 0, ed25519: tx.sourceAccountEd25519 },
    fee: tx.fee,
    seqNum: tx.seqNum,
    cond: tx.timeBounds ? { type: 1, timeBounds: tx.timeBounds } : { type: 0 },
    memo: tx.memo,
    operations: tx.operations,
    ext: { v: 0 },
  };
}

function parseTx(
  networkId: Uint8Array,
  envelopeType: 0 | 2,
  tx: xdr.TransactionWire,
  signatures: xdr.DecoratedSignatureWire[],
  fullHash: string,
): ParsedTx {
  const contentsHash = contentsHashOfTx(networkId, tx);
  const parsed: ParsedTx = {
    envelopeType,
    source: accountIdFromMuxed(tx.sourceAccount),
    sourceMuxed: tx.sourceAccount,
    fee: BigInt(tx.fee),
    seqNum: tx.seqNum,
    memo: tx.memo,
    minSeqAge: 0n,
    minSeqLedgerGap: 0,
    extraSigners: [],
    operations: tx.operations,
    signatures,
    extV: tx.ext.v,
    ...(tx.ext.v === 1 ? { sorobanData: tx.ext.sorobanData } : {}),
    envelopeSize: 0,
    networkId,
    contentsHash,
    hash: toHex(contentsHash),
    fullHash,
  };
  const cond = tx.cond;
  if (cond.type === 1) {
    parsed.timeBounds = cond.timeBounds;
  } else if (cond.type === 2) {
    const v2 = cond.v2;
    if (v2.timeBounds) parsed.timeBounds = v2.timeBounds;
    if (v2.ledgerBounds) parsed.ledgerBounds = v2.ledgerBounds;
    if (v2.minSeqNum !== null) parsed.minSeqNum = v2.minSeqNum;
    parsed.minSeqAge = v2.minSeqAge;
    parsed.minSeqLedgerGap = v2.minSeqLedgerGap;
    parsed.extraSigners = v2.extraSigners;
  }
  return parsed;
}

/** Decodes a base64 TransactionEnvelope; anything undecodable is an EngineInputError. */
export function parseEnvelope(envelopeXdr: string, networkId: Uint8Array): ParsedEnvelope {
  let bytes: Uint8Array;
  let envelope: xdr.TransactionEnvelopeWire;
  try {
    bytes = new Uint8Array(Buffer.from(envelopeXdr, 'base64'));
    envelope = xdr.TransactionEnvelope.schema.decode(bytes);
  } catch (e) {
    throw new EngineInputError(`cannot decode TransactionEnvelope: ${(e as Error).message}`);
  }
  const canonical = xdr.TransactionEnvelope.schema.encode(envelope);
  const fullHash = toHex(sha256(canonical));
  const envelopeB64 = toBase64(canonical);
  const withSize = (tx: ParsedTx): ParsedTx => ({ ...tx, envelopeSize: canonical.length });

  if (envelope.type === 5) {
    const fb = envelope.feeBump;
    const innerEnv = fb.tx.innerTx.v1;
    const innerFull = toHex(sha256(xdr.TransactionEnvelope.schema.encode({ type: 2, v1: innerEnv })));
    const inner = withSize(parseTx(networkId, 2, innerEnv.tx, innerEnv.signatures, innerFull));
    const contentsHash = sha256(
      xdr.TransactionSignaturePayload.schema.encode({ networkId, taggedTransaction: { type: 5, feeBump: fb.tx } }),
    );
    const feeSource = accountIdFromMuxed(fb.tx.feeSource);
    return {
      envelopeXdr: envelopeB64,
      envelope,
      inner,
      feeBump: { feeSource, fee: fb.tx.fee, signatures: fb.signatures, contentsHash },
      hash: toHex(contentsHash),
      fullHash,
      feeOps: inner.operations.length + 1,
      fullFee: fb.tx.fee,
      feeSource,
    };
  }
  const inner = withSize(
    envelope.type === 0
      ? parseTx(networkId, 0, v0ToV1(envelope.v0.tx), envelope.v0.signatures, fullHash)
      : parseTx(networkId, 2, envelope.v1.tx, envelope.v1.signatures, fullHash),
  );
  return {
    envelopeXdr: envelopeB64,
    envelope,
    inner,
    hash: inner.hash,
    fullHash,
    feeOps: inner.operations.length,
    fullFee: inner.fee,
    feeSource: inner.source,
  };
}
