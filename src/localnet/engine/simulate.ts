// simulateTransaction for the host functions localnet models: runs the function in recording mode against the
// current state (nothing is written) and answers what `rpc.Server.prepareTransaction` needs: the footprint (entries
// read, entries written), the resources used, the resource fee under localnet's schedule (sorobanFees.ts), the
// authorization entries to sign and the return value.

import { xdr } from '@stellar/stellar-sdk';
import { toBase64 } from './encode';
import type { ParsedEnvelope } from './envelope';
import type { HeaderView } from './reserves';
import { isDiskReadKey, nonRefundableResourceFee, rentFee } from './sorobanFees';
import { recordKey, runHostFunction } from './sorobanHost';
import type { StateReader } from './state';
import type { SimulationResult } from './types';
import { operationSource } from './validate';

/**
 * Bytes added to the envelope size the fee is computed on: the transaction's own signatures and the signatures
 * still to be written into address-credential entries make the submitted envelope bigger than the simulated one.
 */
const SIGNATURE_SLACK_BYTES = 512;

export function simulateEnvelope(
  parsed: ParsedEnvelope,
  state: StateReader,
  header: HeaderView & { networkPassphrase: string },
): SimulationResult {
  const tx = parsed.inner;
  const op = tx.operations[0];
  if (!op || op.body.type !== 24) {
    return {
      ok: false,
      error: 'localnet simulates invokeHostFunction only (extendFootprintTtl and restoreFootprint are not modelled)',
    };
  }
  const hostOp = op.body.invokeHostFunctionOp;
  const outcome = runHostFunction({
    fn: hostOp.hostFunction,
    auth: hostOp.auth,
    source: operationSource(op, tx),
    state,
    networkId: tx.networkId,
    networkPassphrase: header.networkPassphrase,
    // the transaction applies in the next ledger at the earliest
    ledgerSeq: header.ledgerSeq + 1,
    header,
    recording: true,
  });
  if (!outcome.ok) return { ok: false, error: outcome.message };

  const decodeKey = (b64: string): xdr.LedgerKeyWire => xdr.LedgerKey.schema.decode(Buffer.from(b64, 'base64'));
  const footprint: xdr.LedgerFootprintWire = {
    readOnly: outcome.readOnly.map(decodeKey),
    readWrite: outcome.writes.map((r) => decodeKey(recordKey(r))),
  };
  const resources: xdr.SorobanResourcesWire = {
    footprint,
    instructions: outcome.instructions,
    diskReadBytes: outcome.diskReadBytes,
    writeBytes: outcome.writeBytes,
  };
  const draft: xdr.SorobanTransactionDataWire = { ext: { v: 0 }, resources, resourceFee: 0n };
  const authBytes = outcome.auth.reduce((n, e) => n + xdr.SorobanAuthorizationEntry.schema.encode(e).length, 0);
  const providedAuthBytes = hostOp.auth.reduce((n, e) => n + xdr.SorobanAuthorizationEntry.schema.encode(e).length, 0);
  const envelopeSize =
    tx.envelopeSize +
    (tx.sorobanData ? 0 : xdr.SorobanTransactionData.schema.encode(draft).length) +
    Math.max(0, authBytes - providedAuthBytes) +
    SIGNATURE_SLACK_BYTES;
  const keys = [...footprint.readOnly, ...footprint.readWrite];
  const resourceFee =
    nonRefundableResourceFee(
      {
        instructions: resources.instructions,
        diskReadBytes: resources.diskReadBytes,
        writeBytes: resources.writeBytes,
        diskReadEntries: keys.filter(isDiskReadKey).length,
        writeEntries: footprint.readWrite.length,
      },
      envelopeSize,
    ) + rentFee(outcome.createdBytes);
  return {
    ok: true,
    transactionDataXdr: toBase64(xdr.SorobanTransactionData.schema.encode({ ...draft, resourceFee })),
    minResourceFee: resourceFee,
    auth: outcome.auth.map((e) => toBase64(xdr.SorobanAuthorizationEntry.schema.encode(e))),
    returnValueXdr: toBase64(xdr.ScVal.schema.encode(outcome.returnValue)),
  };
}
