// Soroban auth set-up shared by the allowlist and sign-auth-entry tests: contracts installed on the service's localnet
// out of band (a WASM module holding only a `contractspecv0` section: localnet stores it, never runs it), a Stellar
// Asset Contract as the chain gateway reports it, and unsigned authorization entries built as a simulation would.
import { Keypair, StrKey, xdr } from '@stellar/stellar-sdk';
import { StellarUnavailableError } from '../../src/infra/stellar/errors';
import type { ContractExecutable, StellarGateway } from '../../src/infra/stellar/gateway';
import type { TestService } from './service';

function leb128(n: number): Buffer {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return Buffer.from(out);
}

/** A WASM module whose only content is a `contractspecv0` custom section declaring functions `names`. */
export function specWasm(names: string[]): Buffer {
  const spec = Buffer.concat(
    names.map((name) =>
      xdr.ScSpecEntry.schema.encode({
        kind: 0,
        functionV0: { doc: new xdr.XdrString(''), name: new xdr.XdrString(name), inputs: [], outputs: [] },
      }),
    ),
  );
  const sectionName = Buffer.from('contractspecv0');
  const content = Buffer.concat([leb128(sectionName.length), sectionName, spec]);
  return Buffer.concat([Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 0]), leb128(content.length), content]);
}

let salts = 0;

/** Installs a new contract exposing `names` on the service's localnet; answers its C-address. */
export function installContract(svc: Pick<TestService, 'localnet'>, names: string[]): string {
  if (!svc.localnet) throw new Error('the service runs no localnet');
  salts += 1;
  const salt = Buffer.alloc(32);
  salt.writeUInt32BE(salts);
  salt.writeUInt32BE(process.pid, 4);
  return svc.localnet.engine.installContract(specWasm(names), { salt }).contractId;
}

/** A C-address no ledger holds. */
export function unknownContract(): string {
  return StrKey.encodeContract(Keypair.random().rawPublicKey());
}

/**
 * Replaces the service's testnet gateway's contract reads while `use` runs: `read` answers for every contract
 * (return undefined to fall through to the real gateway).
 */
export async function withContractReads<T>(
  svc: Pick<TestService, 'deps'>,
  read: (contractId: string) => Promise<ContractExecutable | undefined> | 'fallthrough',
  use: () => Promise<T>,
): Promise<T> {
  const gateways = svc.deps.stellar!.gateways!;
  const real = gateways.testnet!;
  const patched: StellarGateway = {
    ...real,
    contractExecutable: (id) => {
      const got = read(id);
      return got === 'fallthrough' ? real.contractExecutable(id) : got;
    },
  };
  gateways.testnet = patched;
  try {
    return await use();
  } finally {
    gateways.testnet = real;
  }
}

/** A Stellar Asset Contract at `contractId` (as a deployed SAC's instance reads), other contracts as they are. */
export const sacAt =
  (contractId: string) =>
  (id: string): Promise<ContractExecutable | undefined> | 'fallthrough' =>
    id === contractId ? Promise.resolve({ kind: 'stellar_asset' }) : 'fallthrough';

/** An RPC that cannot be reached. */
export const rpcDown = (): Promise<ContractExecutable | undefined> =>
  Promise.reject(new StellarUnavailableError('Stellar RPC getLedgerEntries failed: connect ECONNREFUSED'));

export interface Call {
  contract: string;
  fn: string;
  sub?: Call[];
}

function invocation(call: Call): xdr.SorobanAuthorizedInvocationWire {
  return {
    function: {
      type: 0,
      contractFn: {
        contractAddress: { type: 1, contractId: StrKey.decodeContract(call.contract) },
        functionName: new xdr.XdrString(call.fn),
        args: [],
      },
    },
    subInvocations: (call.sub ?? []).map(invocation),
  };
}

/**
 * An unsigned SorobanAuthorizationEntry (base64) for `address` over the invocation tree `root`: ADDRESS_V2 credentials
 * (the js SDK's default) unless `legacy`, with a random nonce.
 */
export function unsignedEntry(address: string, root: Call, opts: { legacy?: boolean } = {}): string {
  const creds: xdr.SorobanAddressCredentialsWire = {
    address: StrKey.isValidContract(address)
      ? { type: 1, contractId: StrKey.decodeContract(address) }
      : { type: 0, accountId: { type: 0, ed25519: StrKey.decodeEd25519PublicKey(address) } },
    nonce: BigInt.asIntN(
      64,
      BigInt(`0x${Buffer.from(Keypair.random().rawPublicKey()).subarray(0, 8).toString('hex')}`),
    ),
    signatureExpirationLedger: 0,
    signature: { type: 1 },
  };
  const entry: xdr.SorobanAuthorizationEntryWire = {
    credentials: opts.legacy ? { type: 1, address: creds } : { type: 2, addressV2: creds },
    rootInvocation: invocation(root),
  };
  return Buffer.from(xdr.SorobanAuthorizationEntry.schema.encode(entry)).toString('base64');
}
