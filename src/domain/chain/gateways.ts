// The chain gateway of each configured network, as the domain reaches it (Stellar RPC only, never Horizon).
import type { NetworkName } from '../../config';
import type { StellarGateway } from '../../infra/stellar/gateway';
import type { Deps } from '../deps';
import { AppError } from '../errors';

/** The chain gateway of a network; 503 STELLAR_UNAVAILABLE when the network has no RPC configured. */
export function gatewayFor(deps: Pick<Deps, 'stellar'>, network: NetworkName): StellarGateway {
  const gateway = deps.stellar?.gateways?.[network];
  if (!gateway) throw new AppError('STELLAR_UNAVAILABLE', { message: `No Stellar RPC is configured for ${network}` });
  return gateway;
}
