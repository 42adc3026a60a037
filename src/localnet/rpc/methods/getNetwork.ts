import type { MethodHandler } from '../jsonRpc';
import type { RpcContext } from '../context';

/**
 * friendbotUrl is built from the Host the client used, so a browser or a container reaching localnet under another
 * name is sent to a friendbot it can reach. Omitted when localnet runs without friendbot (as the RPC omits it).
 */
export function getNetwork(ctx: Pick<RpcContext, 'engine' | 'settings'>): MethodHandler {
  return (_params, call) => {
    const { friendbotPath, defaultHost } = ctx.settings;
    return {
      ...(friendbotPath ? { friendbotUrl: `http://${call.host || defaultHost}${friendbotPath}` } : {}),
      passphrase: ctx.engine.networkPassphrase,
      protocolVersion: ctx.engine.protocolVersion,
    };
  };
}
