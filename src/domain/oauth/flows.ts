// Google and GitHub sign-in, the same for the Dashboard (operators) and apps (end users): starting a flow mints a
// state bound to it and answers the provider's authorization URL; finishing uses the state up, exchanges the code and
// answers the verified identity. Who is signed in with that identity is the caller's business (operators or users).
// What differs between the two surfaces is whose client talks to the provider and which redirect URIs are allowed:
// the Dashboard's own client and callbacks (configuration), or the app's client and redirect URIs (its settings).
import type { Knex } from 'knex';
import type { OAuthClientCredentials, OAuthSettings } from '../../config';
import type { ServiceSecrets } from '../../infra/secrets/serviceSecret';
import { getAppDomains } from '../apps/domains';
import { AppError } from '../errors';
import { appOAuthClient } from './appProviders';
import { createIdentityProviders, providerName, type OAuthProvider, type VerifiedIdentity } from './identityProviders';
import { consumeOAuthState, newOAuthState, saveOAuthState, type OAuthFlowBinding } from './states';

export interface StartedFlow {
  authorizationUrl: string;
  state: string;
  expiresAt: Date;
}

export interface OAuthFlows {
  start(input: {
    binding: OAuthFlowBinding;
    client: OAuthClientCredentials;
    codeChallenge: string;
    now: Date;
  }): Promise<StartedFlow>;
  /** OAUTH_STATE_INVALID when the state does not belong to this flow; OAUTH_EXCHANGE_FAILED when the provider refuses. */
  finish(input: {
    binding: OAuthFlowBinding;
    client: OAuthClientCredentials;
    state: string;
    code: string;
    codeVerifier: string;
    now: Date;
  }): Promise<VerifiedIdentity>;
}

export function createOAuthFlows(
  db: Knex,
  secrets: Pick<ServiceSecrets, 'derive'>,
  settings: OAuthSettings,
): OAuthFlows {
  const providers = createIdentityProviders(settings);
  return {
    async start({ binding, client, codeChallenge, now }) {
      const state = newOAuthState();
      // The URL first: when the provider cannot be reached (discovery), no state is left behind.
      const authorizationUrl = await providers.authorizationUrl(binding.provider, client, {
        redirectUri: binding.redirectUri,
        state,
        codeChallenge,
      });
      const expiresAt = await saveOAuthState(db, secrets, { state, binding, codeChallenge, now });
      return { authorizationUrl, state, expiresAt };
    },
    async finish({ binding, client, state, code, codeVerifier, now }) {
      await consumeOAuthState(db, secrets, { state, binding, codeVerifier, now });
      // Outside any transaction: a network call to the provider.
      return providers.exchange(binding.provider, client, { code, redirectUri: binding.redirectUri, codeVerifier });
    },
  };
}

/** The Dashboard's own client for `provider`, or 422 OAUTH_PROVIDER_NOT_CONFIGURED. */
export function requireDashboardClient(settings: OAuthSettings, provider: OAuthProvider): OAuthClientCredentials {
  const client = settings.dashboard[provider];
  if (!client)
    throw new AppError('OAUTH_PROVIDER_NOT_CONFIGURED', {
      message: `${providerName(provider)} sign-in is not configured for the Dashboard`,
    });
  return client;
}

/** `redirectUri` must be one of the Dashboard's configured callbacks, exactly; 400 REDIRECT_URI_NOT_ALLOWED otherwise. */
export function requireDashboardRedirectUri(settings: OAuthSettings, redirectUri: string): void {
  if (!settings.dashboard.redirectUris.includes(redirectUri)) {
    throw new AppError('REDIRECT_URI_NOT_ALLOWED', {
      message: 'The redirect URI is not one of the Dashboard callbacks',
    });
  }
}

/** The app's client for `provider` when the app enabled it, or 422 OAUTH_PROVIDER_NOT_CONFIGURED. */
export async function requireAppClient(
  db: Knex,
  secrets: Pick<ServiceSecrets, 'derive'>,
  appId: string,
  provider: OAuthProvider,
): Promise<OAuthClientCredentials> {
  const client = await appOAuthClient(db, secrets, appId, provider);
  if (!client)
    throw new AppError('OAUTH_PROVIDER_NOT_CONFIGURED', {
      message: `${providerName(provider)} sign-in is not configured for this app`,
    });
  return client;
}

/**
 * `redirectUri` must be one of the app's OAuth redirect URIs (Build, Domains), exactly: REDIRECT_URI_NOT_ALLOWED
 * otherwise, or `whenNone` for an app that has none (starting a flow says so plainly: APPLICATION_HAS_NO_REDIRECT_URIS).
 */
export async function requireAppRedirectUri(
  db: Knex,
  appId: string,
  redirectUri: string,
  whenNone: 'APPLICATION_HAS_NO_REDIRECT_URIS' | 'REDIRECT_URI_NOT_ALLOWED',
): Promise<void> {
  const { redirectUris } = await getAppDomains(db, appId);
  if (redirectUris.length === 0) {
    throw new AppError(whenNone, { message: 'The app has no OAuth redirect URIs (add them under Build, Domains)' });
  }
  if (!redirectUris.includes(redirectUri)) {
    throw new AppError('REDIRECT_URI_NOT_ALLOWED', { message: `${redirectUri} is not one of the app's redirect URIs` });
  }
}
