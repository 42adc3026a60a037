// invokeHostFunction (InvokeHostFunctionOpFrame) for the host functions localnet models: upload WASM, create a
// contract from an address or a classic asset's Stellar Asset Contract, and invoke that contract's functions (see
// sorobanHost.ts and sorobanAssetContract.ts). As on the network, what the function touches must be inside the
// transaction's declared footprint (a read outside it, or a write outside the read-write part, traps), the declared
// instructions and bytes must cover what it used (RESOURCE_LIMIT_EXCEEDED), and the refundable part of the resource
// fee must cover the rent of the entries it creates (INSUFFICIENT_REFUNDABLE_FEE). Invoking WASM code, and the
// Stellar Asset Contract's admin functions (clawback, set_admin, set_authorized...), are not modelled:
// opNOT_SUPPORTED at submission.

import { xdr } from '@stellar/stellar-sdk';
import { OP, OP_TYPE } from '../codes';
import { toBase64 } from '../encode';
import { sha256 } from '../meta';
import { opError, opInner } from '../results';
import { isDiskReadKey, nonRefundableResourceFee, rentFee } from '../sorobanFees';
import { recordKey, runHostFunction, unsupportedHostFunction, unsupportedInvocation } from '../sorobanHost';
import { defineOperation } from './types';

const T = OP_TYPE.INVOKE_HOST_FUNCTION;

/** InvokeHostFunctionResultCode. */
export const INVOKE_HOST_FUNCTION = {
  SUCCESS: 0,
  MALFORMED: -1,
  TRAPPED: -2,
  RESOURCE_LIMIT_EXCEEDED: -3,
  ENTRY_ARCHIVED: -4,
  INSUFFICIENT_REFUNDABLE_FEE: -5,
} as const;

const keyB64 = (key: xdr.LedgerKeyWire): string => toBase64(xdr.LedgerKey.schema.encode(key));

export const invokeHostFunction = defineOperation({
  type: T,
  checkValid({ invokeHostFunctionOp: op }, { state }) {
    if (unsupportedHostFunction(op.hostFunction) || unsupportedInvocation(state, op.hostFunction)) {
      return opError(OP.NOT_SUPPORTED);
    }
    return undefined;
  },
  apply({ invokeHostFunctionOp: op }, { ltx, header, source, tx, soroban }) {
    const data = tx.sorobanData;
    if (!data || !header.networkPassphrase) throw new Error('invokeHostFunction applied without Soroban data');
    const outcome = runHostFunction({
      fn: op.hostFunction,
      auth: op.auth,
      source,
      state: ltx,
      networkId: tx.networkId,
      networkPassphrase: header.networkPassphrase,
      ledgerSeq: header.ledgerSeq,
      header,
      recording: false,
    });
    if (!outcome.ok) return opInner(T, INVOKE_HOST_FUNCTION.TRAPPED);

    const { footprint, instructions, diskReadBytes, writeBytes } = data.resources;
    const readWrite = new Set(footprint.readWrite.map(keyB64));
    const readable = new Set([...footprint.readOnly.map(keyB64), ...readWrite]);
    if (!outcome.readOnly.every((k) => readable.has(k)) || !outcome.writes.every((r) => readWrite.has(recordKey(r)))) {
      return opInner(T, INVOKE_HOST_FUNCTION.TRAPPED);
    }
    if (
      outcome.instructions > instructions ||
      outcome.diskReadBytes > diskReadBytes ||
      outcome.writeBytes > writeBytes
    ) {
      return opInner(T, INVOKE_HOST_FUNCTION.RESOURCE_LIMIT_EXCEEDED);
    }
    const nonRefundable = nonRefundableResourceFee(
      {
        instructions,
        diskReadBytes,
        writeBytes,
        diskReadEntries: [...footprint.readOnly, ...footprint.readWrite].filter(isDiskReadKey).length,
        writeEntries: footprint.readWrite.length,
      },
      tx.envelopeSize,
    );
    const rent = rentFee(outcome.createdBytes);
    if (data.resourceFee - nonRefundable < rent) {
      return opInner(T, INVOKE_HOST_FUNCTION.INSUFFICIENT_REFUNDABLE_FEE);
    }

    for (const record of outcome.writes) ltx.create(record);
    soroban.returnValue = outcome.returnValue;
    soroban.events = outcome.events;
    soroban.fees = { nonRefundable, refundable: data.resourceFee - nonRefundable, rent };
    const success = sha256(
      xdr.InvokeHostFunctionSuccessPreImage.schema.encode({ returnValue: outcome.returnValue, events: outcome.events }),
    );
    return opInner(T, INVOKE_HOST_FUNCTION.SUCCESS, { success });
  },
});
