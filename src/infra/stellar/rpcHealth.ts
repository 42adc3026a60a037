// Probes a Stellar RPC endpoint with getHealth (Stellar RPC only; never Horizon).
import { rpc } from '@stellar/stellar-sdk';

export interface RpcHealth {
  healthy: boolean;
  latestLedger?: number;
  detail?: string;
}

export async function probeRpcHealth(url: string, timeoutMs = 3000): Promise<RpcHealth> {
  const server = new rpc.Server(url, { allowHttp: url.startsWith('http://'), timeout: timeoutMs });
  try {
    const health = await server.getHealth();
    return { healthy: health.status === 'healthy', latestLedger: health.latestLedger };
  } catch (err) {
    return { healthy: false, detail: err instanceof Error ? err.message : String(err) };
  }
}
