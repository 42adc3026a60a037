// Installing a contract out of band (contracts are never executed here): the WASM is stored as a ContractCode entry
// keyed by its sha256, and a persistent ContractData entry holds the instance (key scvLedgerKeyContractInstance,
// value scvContractInstance{executable: wasm hash}), which is what clients read to discover a contract's functions.
//
// Contract id: derived exactly as the network derives it for a contract created from an address,
// sha256(HashIdPreimage ENVELOPE_TYPE_CONTRACT_ID {networkId, fromAddress{address: the root account, salt}}), where
// salt defaults to the WASM hash - so installing the same WASM twice without a salt yields the same contract.

import { StrKey, xdr } from '@stellar/stellar-sdk';
import { EngineInputError } from './errors';
import { publicKeyWire, toBase64, toHex } from './encode';
import { sha256 } from './meta';
import type { ContractRecord } from './state';

/**
 * How long installed entries live: localnet's choice of about 120 days of 5-second ledgers, long enough that
 * nothing a session does ever sees them expire (TTL extension is not modelled).
 */
export const CONTRACT_ENTRY_TTL_LEDGERS = 2_073_600;

function readLeb128(bytes: Uint8Array, offset: number): { value: number; next: number } {
  let value = 0;
  let shift = 0;
  let pos = offset;
  for (;;) {
    const b = bytes[pos++];
    if (b === undefined) throw new EngineInputError('truncated WASM');
    value += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) return { value, next: pos };
    shift += 7;
    if (shift > 35) throw new EngineInputError('invalid LEB128 in WASM');
  }
}

/** Names of the WASM's custom sections (enough to require `contractspecv0`). */
export function wasmCustomSections(wasm: Uint8Array): string[] {
  if (wasm.length < 8 || wasm[0] !== 0 || wasm[1] !== 0x61 || wasm[2] !== 0x73 || wasm[3] !== 0x6d) {
    throw new EngineInputError('not a WASM module (missing \\0asm magic)');
  }
  const names: string[] = [];
  let pos = 8;
  while (pos < wasm.length) {
    const id = wasm[pos++] as number;
    const size = readLeb128(wasm, pos);
    const end = size.next + size.value;
    if (end > wasm.length) throw new EngineInputError('truncated WASM section');
    if (id === 0) {
      const len = readLeb128(wasm, size.next);
      names.push(Buffer.from(wasm.subarray(len.next, len.next + len.value)).toString('utf8'));
    }
    pos = end;
  }
  return names;
}

export interface InstalledContract {
  contractId: string;
  wasmHash: string;
  records: ContractRecord[];
}

export function buildContractInstall(
  wasm: Uint8Array,
  networkId: Uint8Array,
  deployer: string,
  ledgerSeq: number,
  salt?: Uint8Array,
): InstalledContract {
  if (!wasmCustomSections(wasm).includes('contractspecv0')) {
    throw new EngineInputError('the WASM has no contractspecv0 custom section');
  }
  if (salt && salt.length !== 32) throw new EngineInputError('salt must be 32 bytes');
  const wasmHash = sha256(wasm);
  const contractIdBytes = sha256(
    xdr.HashIdPreimage.schema.encode({
      type: 8,
      contractId: {
        networkId,
        contractIdPreimage: {
          type: 0,
          fromAddress: { address: { type: 0, accountId: publicKeyWire(deployer) }, salt: salt ?? wasmHash },
        },
      },
    }),
  );
  const liveUntil = ledgerSeq + CONTRACT_ENTRY_TTL_LEDGERS - 1;

  const codeKey: xdr.LedgerKeyWire = { type: 7, contractCode: { hash: wasmHash } };
  const codeData: xdr.LedgerEntryDataWire = { type: 7, contractCode: { ext: { v: 0 }, hash: wasmHash, code: wasm } };
  const contract: xdr.ScAddressWire = { type: 1, contractId: contractIdBytes };
  const instanceKey: xdr.LedgerKeyWire = { type: 6, contractData: { contract, key: { type: 20 }, durability: 1 } };
  const instanceData: xdr.LedgerEntryDataWire = {
    type: 6,
    contractData: {
      ext: { v: 0 },
      contract,
      key: { type: 20 },
      durability: 1,
      val: { type: 19, instance: { executable: { type: 0, wasmHash }, storage: null } },
    },
  };
  const record = (key: xdr.LedgerKeyWire, data: xdr.LedgerEntryDataWire): ContractRecord => ({
    kind: 'contract',
    keyXdr: toBase64(xdr.LedgerKey.schema.encode(key)),
    dataXdr: toBase64(xdr.LedgerEntryData.schema.encode(data)),
    liveUntil,
    lastModified: ledgerSeq,
  });
  return {
    contractId: StrKey.encodeContract(contractIdBytes),
    wasmHash: toHex(wasmHash),
    records: [record(codeKey, codeData), record(instanceKey, instanceData)],
  };
}
