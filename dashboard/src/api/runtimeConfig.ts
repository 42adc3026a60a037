// What the service tells its dashboard at run time (GET /dashboard/config.json, written by src/http/dashboard.ts):
// which operator sign-in methods it has, and the development aids it offers. Not Dashboard API data: it is read
// before anyone is signed in and changes only with the service's configuration.
import { useQuery } from '@tanstack/react-query';

export interface RuntimeConfig {
  version: string;
  operatorSignIn: {
    email: boolean;
    google: boolean;
    github: boolean;
    stellar: { network: 'testnet' | 'mainnet'; homeDomain: string };
  };
  /** The configured OAuth callback that points at this dashboard; null: Google and GitHub cannot be offered. */
  oauthRedirectUri: string | null;
  /** The dev outbox view is on: the sign-in page shows the code it sent. */
  devOutbox: boolean;
  /** A local development Stellar signer may be offered (testnet played by localnet). */
  devSigner: boolean;
}

export const RUNTIME_CONFIG_URL = `${import.meta.env.BASE_URL}config.json`;

async function loadRuntimeConfig(): Promise<RuntimeConfig> {
  const response = await fetch(RUNTIME_CONFIG_URL, { cache: 'no-store' });
  if (!response.ok) throw new Error(`The dashboard's settings could not be read (${response.status})`);
  return (await response.json()) as RuntimeConfig;
}

export function useRuntimeConfig() {
  return useQuery({ queryKey: ['runtimeConfig'], queryFn: loadRuntimeConfig, staleTime: Infinity });
}
