// What a contract exposes, read from the chain when an allowlist row is saved: instance -> code -> the WASM's
// `contractspecv0` custom section (parsed by the SDK's contract.Spec), so a row can only name functions that exist.
// A Stellar Asset Contract has no WASM: it introspects as the token interface it implements (SEP-41 plus its admin
// functions).
import { contract } from '@stellar/stellar-sdk';
import type { NetworkName } from '../../config';
import { StellarUnavailableError } from '../../infra/stellar/errors';
import type { Deps } from '../deps';
import { AppError } from '../errors';

/** The Stellar Asset Contract's functions: SEP-41's token interface and the SAC's admin interface. */
export const STELLAR_ASSET_CONTRACT_FUNCTIONS: readonly string[] = [
  'allowance',
  'approve',
  'balance',
  'transfer',
  'transfer_from',
  'burn',
  'burn_from',
  'decimals',
  'name',
  'symbol',
  'set_admin',
  'admin',
  'set_authorized',
  'authorized',
  'mint',
  'clawback',
];

function introspectionFailed(contractId: string, why: string, cause?: unknown): AppError {
  return new AppError('CONTRACT_INTROSPECTION_FAILED', {
    message: `Contract ${contractId} could not be read from Stellar RPC (${why}); nothing was saved, retry later`,
    cause,
  });
}

/** What a contract exposes: its kind and its function names, sorted. */
export interface ContractInterface {
  kind: 'wasm' | 'stellar_asset';
  functions: string[];
}

/**
 * What `contractId` exposes on `network`. 422 CONTRACT_NOT_FOUND when it is not deployed there, 503
 * CONTRACT_INTROSPECTION_FAILED when the RPC cannot be reached or the contract's spec cannot be read.
 */
export async function contractInterface(
  deps: Pick<Deps, 'stellar'>,
  network: NetworkName,
  contractId: string,
): Promise<ContractInterface> {
  const gateway = deps.stellar?.gateways?.[network];
  if (!gateway) throw introspectionFailed(contractId, `no Stellar RPC is configured for ${network}`);
  let executable;
  try {
    executable = await gateway.contractExecutable(contractId);
  } catch (err) {
    // Unreachable after the gateway's retries, or an RPC that refuses the read: either way the contract is unread.
    throw introspectionFailed(
      contractId,
      err instanceof StellarUnavailableError ? 'RPC unreachable' : 'RPC error',
      err,
    );
  }
  if (!executable)
    throw new AppError('CONTRACT_NOT_FOUND', { message: `Contract ${contractId} is not deployed on ${network}` });
  if (executable.kind === 'stellar_asset') {
    return { kind: 'stellar_asset', functions: [...STELLAR_ASSET_CONTRACT_FUNCTIONS].sort() };
  }
  if (executable.kind === 'other') throw introspectionFailed(contractId, 'its executable kind is not supported');
  let names: string[];
  try {
    names = contract.Spec.fromWasm(Buffer.from(executable.wasm))
      .funcs()
      .map((f) => f.name.toString());
  } catch (err) {
    throw introspectionFailed(contractId, 'its contractspecv0 section does not parse', err);
  }
  return { kind: 'wasm', functions: [...new Set(names)].sort() };
}

/** The function names `contractId` exposes on `network` (contractInterface's errors). */
export async function contractFunctions(
  deps: Pick<Deps, 'stellar'>,
  network: NetworkName,
  contractId: string,
): Promise<Set<string>> {
  return new Set((await contractInterface(deps, network, contractId)).functions);
}
