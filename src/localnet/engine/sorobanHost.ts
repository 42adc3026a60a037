// The Soroban host functions localnet models natively, without a WASM VM: uploading contract code
// (HOST_FUNCTION_TYPE_UPLOAD_CONTRACT_WASM); creating a contract from an account address and uploaded code
// (HOST_FUNCTION_TYPE_CREATE_CONTRACT and _V2); deploying a classic asset's Stellar Asset Contract; and invoking
// that contract's balance, decimals, name, symbol, allowance, transfer, mint, burn, approve, transfer_from and
// burn_from (sorobanAssetContract.ts). One function serves both the ledger (enforcing: the authorization entries must
// authorize the call, signatures, expiration and nonces checked) and simulateTransaction (recording: it says which
// entries to sign, as Stellar RPC's recording mode does). It reports what it read and wrote so the caller can check
// the footprint or build one. Invoking WASM contract code, the SAC's other functions (clawback, set_admin,
// set_authorized, admin, authorized, trust) and contract-address authorizers (they need the contract's __check_auth)
// are not modelled: `unsupportedHostFunction` and `unsupportedInvocation` name them.
//
// A V2 creation's constructor arguments are accepted and ignored: the constructor is WASM code, which is not run.

import { randomBytes } from 'node:crypto';
import { StrKey, xdr } from '@stellar/stellar-sdk';
import { CONTRACT_ENTRY_TTL_LEDGERS, wasmCustomSections } from './contracts';
import {
  creditAssetFromWire,
  encodeLedgerEntryData,
  fromHex,
  isAssetWireValid,
  ledgerKeyWire,
  publicKeyWire,
  toBase64,
} from './encode';
import { sha256 } from './meta';
import {
  type AccountRecord,
  type ContractRecord,
  type LedgerRecord,
  type StateReader,
  accountKey,
  contractKey,
  isLedgerRecord,
} from './state';
import { SAC_FUNCTIONS, SAC_WRITE_FUNCTIONS, callAssetContract, changeAsset } from './sorobanAssetContract';
import { isDiskReadKey } from './sorobanFees';
import type { HeaderView } from './reserves';
import { verifyAuthEntrySignature } from './sorobanAuth';

export const HOST_FN = { INVOKE_CONTRACT: 0, CREATE_CONTRACT: 1, UPLOAD_WASM: 2, CREATE_CONTRACT_V2: 3 } as const;

export const NO_CONTRACT_EXECUTION =
  'localnet does not execute Soroban contracts: invoking WASM contract functions is not modelled (uploading WASM, ' +
  'creating contracts and the Stellar Asset Contract\u2019s token functions are). To run contract code, use a real Stellar RPC.';

const instanceKeyOf = (contract: xdr.ScAddressWire): xdr.LedgerKeyWire => ({
  type: 6,
  contractData: { contract, key: { type: 20 }, durability: 1 },
});

/** A contract's instance (executable and storage) from the state, or undefined. */
export function contractInstance(
  state: StateReader,
  contract: xdr.ScAddressWire,
): xdr.ScContractInstanceWire | undefined {
  const record = state.get(contractKey(keyB64(instanceKeyOf(contract))));
  if (!record || record.kind !== 'contract') return undefined;
  const data = xdr.LedgerEntryData.schema.decode(Buffer.from(record.dataXdr, 'base64'));
  return data.type === 6 && data.contractData.val.type === 19 ? data.contractData.val.instance : undefined;
}

/**
 * Why an invocation cannot run here, judged against the state at submission: WASM code is not executed, and of the
 * Stellar Asset Contract only SAC_FUNCTIONS are (its admin functions and clawback are not). A missing contract is
 * left to apply, where it traps.
 */
export function unsupportedInvocation(state: StateReader, fn: xdr.HostFunctionWire): string | undefined {
  if (fn.type !== HOST_FN.INVOKE_CONTRACT) return undefined;
  const instance = contractInstance(state, fn.invokeContract.contractAddress);
  if (!instance) return undefined;
  if (instance.executable.type !== 1) return NO_CONTRACT_EXECUTION;
  const name = fn.invokeContract.functionName.toString();
  if (!(SAC_FUNCTIONS as readonly string[]).includes(name)) {
    return `localnet executes the Stellar Asset Contract's token functions only (${SAC_FUNCTIONS.join(', ')}); "${name}" is not modelled`;
  }
  return undefined;
}

/** Instructions localnet accounts for each host function (there is no VM to meter). */
const INSTRUCTIONS = { uploadBase: 1_000_000, uploadPerByte: 50, create: 500_000, invokeAsset: 200_000 } as const;

/** Why a host function is not modelled (answered at submission and by simulation), or undefined. */
export function unsupportedHostFunction(fn: xdr.HostFunctionWire): string | undefined {
  // Whether an invocation can run depends on the contract: see unsupportedInvocation.
  if (fn.type === HOST_FN.INVOKE_CONTRACT) return undefined;
  if (fn.type === HOST_FN.UPLOAD_WASM) return undefined;
  const args = fn.type === HOST_FN.CREATE_CONTRACT ? fn.createContract : fn.createContractV2;
  const preimage = args.contractIdPreimage;
  // The Stellar Asset Contract: deployed from its asset with the built-in executable (its functions are not run).
  if (preimage.type === 1 && args.executable.type === 1) return undefined;
  if (preimage.type !== 0 || args.executable.type !== 0) {
    return 'localnet models contracts created from an address with uploaded WASM, and Stellar Asset Contracts deployed from their asset; not this combination of preimage and executable';
  }
  if (preimage.fromAddress.address.type !== 0) {
    return 'localnet cannot run a contract address\u2019s __check_auth: contracts are created from account (G...) addresses only';
  }
  return undefined;
}

export interface HostInput {
  fn: xdr.HostFunctionWire;
  auth: readonly xdr.SorobanAuthorizationEntryWire[];
  /** The operation's source account (G-address). */
  source: string;
  state: StateReader;
  networkId: Uint8Array;
  networkPassphrase: string;
  ledgerSeq: number;
  /** The ledger the call runs in (reserve rules for XLM transfers). */
  header: HeaderView;
  /** Simulation: authorization is recorded (and provided entries reused unverified), not enforced. */
  recording: boolean;
}

export interface HostSuccess {
  ok: true;
  returnValue: xdr.ScValWire;
  /** Canonical base64 LedgerKeys read but not written. */
  readOnly: string[];
  /** Entries written (their keys, recordKey, form the read-write footprint). */
  writes: LedgerRecord[];
  /** Contract events emitted (the SAC's CAP-67 events). */
  events: xdr.ContractEventWire[];
  /** Bytes of each entry created by this call (rent is charged on them). */
  createdBytes: number[];
  /** The authorization entries used (enforcing) or to sign (recording). */
  auth: xdr.SorobanAuthorizationEntryWire[];
  instructions: number;
  /** Bytes of classic entries read (ledger disk reads). */
  diskReadBytes: number;
  diskReadEntries: number;
  writeBytes: number;
}

export interface HostFailure {
  ok: false;
  message: string;
}

const keyB64 = (key: xdr.LedgerKeyWire): string => toBase64(xdr.LedgerKey.schema.encode(key));
const decodeKeyType = (b64: string): { type: number } => xdr.LedgerKey.schema.decode(Buffer.from(b64, 'base64'));

function contractRecord(key: xdr.LedgerKeyWire, data: xdr.LedgerEntryDataWire, liveUntil: number): ContractRecord {
  return {
    kind: 'contract',
    keyXdr: keyB64(key),
    dataXdr: toBase64(xdr.LedgerEntryData.schema.encode(data)),
    liveUntil,
    lastModified: 0,
  };
}

/** The canonical base64 LedgerKey of a record (what a footprint names). */
export function recordKey(r: LedgerRecord): string {
  return r.kind === 'contract' ? r.keyXdr : keyB64(ledgerKeyWire(r));
}

function entrySize(r: LedgerRecord): number {
  return Buffer.from(recordKey(r), 'base64').length + Buffer.from(encodeLedgerEntryData(r), 'base64').length;
}

/** The nonce entry consumed by an address credential: temporary data of the authorizer, key scvLedgerKeyNonce. */
export function nonceKey(address: xdr.ScAddressWire, nonce: bigint): Extract<xdr.LedgerKeyWire, { type: 6 }> {
  return { type: 6, contractData: { contract: address, key: { type: 21, nonceKey: { nonce } }, durability: 0 } };
}

/** Runs an upload or a contract creation against `state` (never mutated). */
export function runHostFunction(input: HostInput): HostSuccess | HostFailure {
  const unsupported = unsupportedHostFunction(input.fn);
  if (unsupported) return { ok: false, message: unsupported };
  const liveUntil = input.ledgerSeq + CONTRACT_ENTRY_TTL_LEDGERS - 1;
  const fn = input.fn;

  if (fn.type === HOST_FN.UPLOAD_WASM) {
    try {
      wasmCustomSections(fn.wasm);
    } catch (e) {
      return { ok: false, message: `invalid WASM: ${(e as Error).message}` };
    }
    const hash = sha256(fn.wasm);
    const key: xdr.LedgerKeyWire = { type: 7, contractCode: { hash } };
    const existing = input.state.get(contractKey(keyB64(key)));
    const record = contractRecord(
      key,
      { type: 7, contractCode: { ext: { v: 0 }, hash, code: fn.wasm } },
      existing && existing.kind === 'contract' ? Math.max(existing.liveUntil, liveUntil) : liveUntil,
    );
    return {
      ok: true,
      returnValue: { type: 13, bytes: hash },
      readOnly: [],
      writes: [record],
      createdBytes: existing ? [] : [entrySize(record)],
      auth: [],
      events: [],
      instructions: INSTRUCTIONS.uploadBase + INSTRUCTIONS.uploadPerByte * fn.wasm.length,
      diskReadBytes: 0,
      diskReadEntries: 0,
      writeBytes: entrySize(record),
    };
  }

  if (fn.type === HOST_FN.INVOKE_CONTRACT) return invoke(input, fn.invokeContract);
  // createContract (v1 or v2): checked by unsupportedHostFunction to be fromAddress(account) + WASM executable, or
  // fromAsset + the Stellar Asset executable.
  const args = fn.type === HOST_FN.CREATE_CONTRACT ? fn.createContract : fn.createContractV2;
  const contractIdBytes = sha256(
    xdr.HashIdPreimage.schema.encode({
      type: 8,
      contractId: { networkId: input.networkId, contractIdPreimage: args.contractIdPreimage },
    }),
  );
  const contract: xdr.ScAddressWire = { type: 1, contractId: contractIdBytes };
  if (args.contractIdPreimage.type === 1)
    return deployAssetContract(input, args.contractIdPreimage.fromAsset, contract);
  if (args.contractIdPreimage.type !== 0 || args.executable.type !== 0) return { ok: false, message: 'unreachable' };
  const fromAddress = args.contractIdPreimage.fromAddress;

  const codeKey: xdr.LedgerKeyWire = { type: 7, contractCode: { hash: args.executable.wasmHash } };
  if (!input.state.get(contractKey(keyB64(codeKey)))) {
    return { ok: false, message: 'contract creation failed: the WASM it names was never uploaded' };
  }
  const instanceKey: xdr.LedgerKeyWire = { type: 6, contractData: { contract, key: { type: 20 }, durability: 1 } };
  if (input.state.get(contractKey(keyB64(instanceKey)))) {
    return { ok: false, message: `contract ${StrKey.encodeContract(contractIdBytes)} already exists` };
  }

  const authorized: xdr.SorobanAuthorizedFunctionWire =
    fn.type === HOST_FN.CREATE_CONTRACT_V2
      ? { type: 2, createContractV2HostFn: fn.createContractV2 }
      : { type: 1, createContractHostFn: fn.createContract };
  const authz = authorize(input, fromAddress.address, authorized);
  if (!authz.ok) return authz;

  const instance = contractRecord(
    instanceKey,
    {
      type: 6,
      contractData: {
        ext: { v: 0 },
        contract,
        key: { type: 20 },
        durability: 1,
        val: { type: 19, instance: { executable: { type: 0, wasmHash: args.executable.wasmHash }, storage: null } },
      },
    },
    liveUntil,
  );
  const writes = [instance, ...authz.writes];
  return {
    ok: true,
    returnValue: { type: 18, address: contract },
    readOnly: [keyB64(codeKey), ...authz.readOnly],
    writes,
    createdBytes: writes.map(entrySize),
    auth: authz.entries,
    events: [],
    instructions: INSTRUCTIONS.create,
    diskReadBytes: authz.diskReadBytes,
    diskReadEntries: authz.readOnly.length,
    writeBytes: writes.reduce((n, r) => n + entrySize(r), 0),
  };
}

/** An invocation: the Stellar Asset Contract's functions run natively; WASM code is not executed. */
function invoke(input: HostInput, call: xdr.InvokeContractArgsWire): HostSuccess | HostFailure {
  const unsupported = unsupportedInvocation(input.state, { type: 0, invokeContract: call });
  if (unsupported) return { ok: false, message: unsupported };
  const instance = contractInstance(input.state, call.contractAddress);
  if (!instance || instance.executable.type !== 1) {
    return { ok: false, message: 'contract not found: no instance entry for this address' };
  }
  const instanceKeyB64 = keyB64(instanceKeyOf(call.contractAddress));
  const fnName = call.functionName.toString();
  if ((SAC_WRITE_FUNCTIONS as readonly string[]).includes(fnName)) {
    const changed = changeAsset(
      input.state,
      input.header,
      input.ledgerSeq,
      call.contractAddress,
      instance.storage ?? [],
      fnName,
      call.args,
    );
    if (!changed.ok) return changed;
    const authz = authorize(input, changed.authorizer, { type: 0, contractFn: call });
    if (!authz.ok) return authz;
    // The footprint: read-write the balances moved, the allowance written and the nonce consumed; read-only the
    // instance, the authorizer's account (address credentials) and an allowance read but left as it was.
    const writes = [...changed.writes, ...authz.writes];
    const written = new Set(writes.map(recordKey));
    const readOnly = [instanceKeyB64, ...changed.readOnly, ...authz.readOnly].filter((k) => !written.has(k));
    const classicWrites = changed.writes.filter((r) => r.kind !== 'contract');
    const classicCount = (keys: string[]): number =>
      keys.reduce((n, k) => n + (isDiskReadKey(decodeKeyType(k)) ? 1 : 0), 0);
    return {
      ok: true,
      returnValue: { type: 1 },
      readOnly,
      writes,
      createdBytes: [...changed.created, ...authz.writes].map(entrySize),
      auth: authz.entries,
      events: [changed.event],
      instructions: INSTRUCTIONS.invokeAsset,
      diskReadBytes:
        (readOnly.includes(authz.readOnly[0] ?? '') ? authz.diskReadBytes : 0) +
        classicWrites.reduce((n, r) => n + entrySize(r), 0),
      diskReadEntries: classicCount([...readOnly, ...written]),
      writeBytes: writes.reduce((n, r) => n + entrySize(r), 0),
    };
  }
  const result = callAssetContract(
    input.state,
    call.contractAddress,
    instance.storage ?? [],
    fnName,
    call.args,
    input.ledgerSeq,
  );
  if (!result.ok) return result;
  return {
    ok: true,
    returnValue: result.returnValue,
    readOnly: [instanceKeyB64, ...result.readOnly],
    writes: [],
    createdBytes: [],
    auth: [],
    events: [],
    instructions: INSTRUCTIONS.invokeAsset,
    diskReadBytes: result.diskReadBytes,
    diskReadEntries: result.diskReadEntries,
    writeBytes: 0,
  };
}

const sym = (s: string): xdr.ScValWire => ({ type: 15, sym: new xdr.XdrString(s) });
const str = (s: string): xdr.ScValWire => ({ type: 14, str: new xdr.XdrString(s) });

/**
 * The Stellar Asset Contract's instance, as the host writes it on deployment: executable STELLAR_ASSET and instance
 * storage METADATA {decimal 7, name "CODE:ISSUER" or "native", symbol}, Admin (the issuer) and AssetInfo. Anyone may
 * deploy it; no authorization is needed.
 */
function deployAssetContract(
  input: HostInput,
  asset: xdr.AssetWire,
  contract: xdr.ScAddressWire,
): HostSuccess | HostFailure {
  if (!isAssetWireValid(asset)) {
    return { ok: false, message: 'invalid asset' };
  }
  const instanceKey: xdr.LedgerKeyWire = { type: 6, contractData: { contract, key: { type: 20 }, durability: 1 } };
  const contractId = contract.type === 1 ? StrKey.encodeContract(contract.contractId) : '';
  if (input.state.get(contractKey(keyB64(instanceKey)))) {
    return { ok: false, message: `contract ${contractId} already exists` };
  }
  const credit = asset.type === 0 ? undefined : creditAssetFromWire(asset);
  const name = credit ? `${credit.code}:${credit.issuer}` : 'native';
  const storage: xdr.ScMapEntryWire[] = [
    {
      key: sym('METADATA'),
      val: {
        type: 17,
        map: [
          { key: sym('decimal'), val: { type: 3, u32: 7 } },
          { key: sym('name'), val: str(name) },
          { key: sym('symbol'), val: str(credit ? credit.code : 'native') },
        ],
      },
    },
  ];
  if (credit) {
    storage.push({
      key: { type: 16, vec: [sym('Admin')] },
      val: { type: 18, address: { type: 0, accountId: publicKeyWire(credit.issuer) } },
    });
  }
  storage.push({
    key: { type: 16, vec: [sym('AssetInfo')] },
    val: {
      type: 16,
      vec: credit
        ? [
            sym(asset.type === 1 ? 'AlphaNum4' : 'AlphaNum12'),
            {
              type: 17,
              map: [
                { key: sym('asset_code'), val: str(credit.code) },
                { key: sym('issuer'), val: { type: 13, bytes: StrKey.decodeEd25519PublicKey(credit.issuer) } },
              ],
            },
          ]
        : [sym('Native')],
    },
  });
  const instance = contractRecord(
    instanceKey,
    {
      type: 6,
      contractData: {
        ext: { v: 0 },
        contract,
        key: { type: 20 },
        durability: 1,
        val: { type: 19, instance: { executable: { type: 1 }, storage } },
      },
    },
    input.ledgerSeq + CONTRACT_ENTRY_TTL_LEDGERS - 1,
  );
  return {
    ok: true,
    returnValue: { type: 18, address: contract },
    readOnly: [],
    writes: [instance],
    createdBytes: [entrySize(instance)],
    auth: [],
    events: [],
    instructions: INSTRUCTIONS.create,
    diskReadBytes: 0,
    diskReadEntries: 0,
    writeBytes: entrySize(instance),
  };
}

interface Authorization {
  ok: true;
  entries: xdr.SorobanAuthorizationEntryWire[];
  readOnly: string[];
  writes: ContractRecord[];
  diskReadBytes: number;
}

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a).equals(Buffer.from(b));

/**
 * `address` (an account) must authorize `fn` as the root invocation: with source-account credentials when it is the
 * operation's source, else with an address credential whose signature, expiration and nonce the ledger checks (the
 * nonce is then consumed: a temporary entry written until the signature's expiration).
 */
function authorize(
  input: HostInput,
  address: xdr.ScAddressWire,
  fn: xdr.SorobanAuthorizedFunctionWire,
): Authorization | HostFailure {
  if (address.type !== 0) return { ok: false, message: 'contract-address authorizers are not modelled' };
  const account = StrKey.encodeEd25519PublicKey(address.accountId.ed25519);
  const fnBytes = xdr.SorobanAuthorizedFunction.schema.encode(fn);
  const addressBytes = xdr.ScAddress.schema.encode(address);
  const matches = input.auth.filter(
    (e) =>
      e.rootInvocation.subInvocations.length === 0 &&
      sameBytes(xdr.SorobanAuthorizedFunction.schema.encode(e.rootInvocation.function), fnBytes) &&
      (e.credentials.type === 0
        ? account === input.source
        : e.credentials.type === 1 || e.credentials.type === 2
          ? sameBytes(
              xdr.ScAddress.schema.encode(
                e.credentials.type === 1 ? e.credentials.address.address : e.credentials.addressV2.address,
              ),
              addressBytes,
            )
          : false),
  );
  const entry = matches[0];
  const none = { ok: true as const, readOnly: [], writes: [], diskReadBytes: 0 };

  if (!entry) {
    if (!input.recording) return { ok: false, message: `Unauthorized function call for address ${account}` };
    if (account === input.source) {
      return { ...none, entries: [{ credentials: { type: 0 }, rootInvocation: { function: fn, subInvocations: [] } }] };
    }
    const nonce = randomBytes(8).readBigInt64BE() & 0x7fff_ffff_ffff_ffffn;
    const recorded: xdr.SorobanAuthorizationEntryWire = {
      credentials: {
        type: 1,
        address: { address, nonce, signatureExpirationLedger: 0, signature: { type: 1 } },
      },
      rootInvocation: { function: fn, subInvocations: [] },
    };
    return addressCredential(input, account, address, nonce, 0, [recorded]);
  }
  if (entry.credentials.type === 0) return { ...none, entries: [entry] };

  const creds =
    entry.credentials.type === 1
      ? entry.credentials.address
      : entry.credentials.type === 2
        ? entry.credentials.addressV2
        : undefined;
  if (!creds) return { ok: false, message: 'only source-account and address credentials are modelled' };
  if (!input.recording) {
    const acc = input.state.get(accountKey(account)) as AccountRecord | undefined;
    if (!acc) return { ok: false, message: `authorizing account ${account} does not exist` };
    const verified = verifyAuthEntrySignature(
      toBase64(xdr.SorobanAuthorizationEntry.schema.encode(entry)),
      input.networkPassphrase,
      input.ledgerSeq,
      {
        isNonceUsed: (_, nonce) => input.state.get(contractKey(keyB64(nonceKey(address, nonce)))) !== undefined,
        account: {
          masterWeight: acc.thresholds[0],
          mediumThreshold: acc.thresholds[2],
          signers: acc.signers
            .filter((s) => s.type === 0)
            .map((s) => ({ key: StrKey.encodeEd25519PublicKey(Buffer.from(fromHex(s.keyHex))), weight: s.weight })),
        },
      },
    );
    if (!verified.valid) return { ok: false, message: `authorization by ${account} failed: ${verified.message}` };
  }
  return addressCredential(input, account, address, creds.nonce, creds.signatureExpirationLedger, [entry]);
}

/** The entries an address credential touches: the account (read for its signers) and the consumed nonce. */
function addressCredential(
  input: HostInput,
  account: string,
  address: xdr.ScAddressWire,
  nonce: bigint,
  expiration: number,
  entries: xdr.SorobanAuthorizationEntryWire[],
): Authorization {
  const accountKeyB64 = keyB64({ type: 0, account: { accountId: publicKeyWire(account) } });
  const acc = input.state.get(accountKey(account));
  const key = nonceKey(address, nonce);
  // A recorded credential has no expiration yet; the nonce entry is sized as it will be written.
  const nonceRecord = contractRecord(
    key,
    { type: 6, contractData: { ext: { v: 0 }, ...key.contractData, val: { type: 1 } } },
    Math.max(expiration, input.ledgerSeq),
  );
  return {
    ok: true,
    entries,
    readOnly: [accountKeyB64],
    writes: [nonceRecord],
    diskReadBytes: acc && isLedgerRecord(acc) ? Buffer.from(encodeLedgerEntryData(acc), 'base64').length : 0,
  };
}
