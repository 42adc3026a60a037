/** Input the engine cannot even interpret (undecodable XDR, TTL keys): the RPC layer answers -32602. */
export class EngineInputError extends Error {
  override readonly name = 'EngineInputError';
}
