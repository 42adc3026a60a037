// Google and GitHub sign-in for operators (authorization code with PKCE): the start keeps the flow's state and code
// verifier in this tab's sessionStorage and leaves for the provider; the callback page (/auth/callback) finishes it.
import { createPkce } from '@onboard/core';
import { completeOperatorOAuthSignIn, startOperatorOAuthSignIn } from '../../../generated/dashboard/sdk.gen';
import { operatorSession, signInClient } from '../api/client';

export type OperatorOAuthProvider = 'google' | 'github';

interface PendingFlow {
  provider: OperatorOAuthProvider;
  state: string;
  codeVerifier: string;
  redirectUri: string;
  /** Where the operator was going when they had to sign in. */
  returnTo: string;
}

const PENDING_KEY = 'onboard:dashboard:oauth';

/** Starts the flow and sends the browser to the provider (the promise settles only on failure). */
export async function startOAuthSignIn(
  provider: OperatorOAuthProvider,
  redirectUri: string,
  returnTo: string,
): Promise<void> {
  const pkce = await createPkce();
  const { data } = await startOperatorOAuthSignIn({
    client: signInClient,
    path: { provider },
    query: { redirectUri, codeChallenge: pkce.codeChallenge },
    throwOnError: true,
  });
  const pending: PendingFlow = {
    provider,
    state: data.content.state,
    codeVerifier: pkce.codeVerifier,
    redirectUri,
    returnTo,
  };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  window.location.assign(data.content.authorizationUrl);
}

export class OAuthCallbackError extends Error {}

/** Finishes the flow the provider returned to `url`; answers where to go next. */
export async function completeOAuthSignIn(url: URL): Promise<string> {
  // This page's effect runs before the session provider's (children first): the device key must be loaded first.
  await operatorSession.ready();
  const raw = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  const pending = raw ? (JSON.parse(raw) as PendingFlow) : undefined;
  const providerError = url.searchParams.get('error');
  if (providerError) throw new OAuthCallbackError(`The provider refused the sign-in (${providerError}).`);
  const code = url.searchParams.get('code');
  const state = url.searchParams.get('state');
  if (!pending || !code || !state || state !== pending.state) {
    throw new OAuthCallbackError('This sign-in was not started here, or was already finished. Start again.');
  }
  const { data } = await completeOperatorOAuthSignIn({
    client: signInClient,
    path: { provider: pending.provider },
    body: { code, state, redirectUri: pending.redirectUri, codeVerifier: pending.codeVerifier },
    throwOnError: true,
  });
  await operatorSession.establish(data.content);
  return pending.returnTo;
}
