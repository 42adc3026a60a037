// The dashboard's one way to the Dashboard API: the generated client (generated/dashboard, with its TanStack Query
// helpers) whose fetch is the operator session's, so every call carries the access token and a fresh DPoP proof and
// the token is renewed as it nears expiry. Sign-in calls use `signInClient` (a proof of the device key, no token).
import { QueryClient } from '@tanstack/react-query';
import { createOperatorSession } from '@onboard/core/operator';
import { client } from '../../../generated/dashboard/client.gen';
import { createClient, createConfig } from '../../../generated/dashboard/client';
import { failureOf } from './errors';

/** The dashboard is served by the service, so the Dashboard API is on its own origin. */
const origin = globalThis.location?.origin ?? 'http://127.0.0.1:8080';

export const operatorSession = createOperatorSession({ dashboardUrl: origin });

client.setConfig({ baseUrl: origin, fetch: operatorSession.sessionFetch });

export const signInClient = createClient(createConfig({ baseUrl: origin, fetch: operatorSession.signInFetch }));

/** Statuses worth a second try on a read (the transport already retried network failures and 429/503 once more). */
const TRANSIENT = new Set([0, 502, 503, 504]);

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 10_000,
      retry: (count, error) => count < 1 && TRANSIENT.has(failureOf(error).status),
      refetchOnWindowFocus: true,
    },
    mutations: { retry: false },
  },
});

// A signed-out operator's cached answers belong to nobody: drop them.
operatorSession.state.subscribe((state) => {
  if (state.status === 'signedOut') queryClient.clear();
});
