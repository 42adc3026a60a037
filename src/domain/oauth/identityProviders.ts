// Talking to Google and GitHub through openid-client: the authorization URL of a flow, then the code exchange (with
// the client's PKCE verifier) and the account's verified email. Google is OpenID Connect: its endpoints come from
// discovery, the ID token is checked by the library (issuer, audience, expiry, and its signature against the
// provider's keys), and the profile comes from the userinfo endpoint for the ID token's subject. GitHub is plain
// OAuth 2.0: the token endpoint, then its user API (`/user` for the account id and name, `/user/emails` for the
// primary verified address). Any refusal or unreadable answer is 502 OAUTH_EXCHANGE_FAILED, as is an account
// without a verified email: an unverified address would let anyone claim another person's account.
import * as oidc from 'openid-client';
import type { OAuthClientCredentials, OAuthSettings } from '../../config';
import { AppError } from '../errors';

export type OAuthProvider = 'google' | 'github';

export const OAUTH_PROVIDERS: readonly OAuthProvider[] = ['google', 'github'];

export function providerName(provider: OAuthProvider): string {
  return provider === 'google' ? 'Google' : 'GitHub';
}

/** An account as its provider vouches for it: a stable subject (OIDC `sub`, GitHub user id) and a verified email. */
export interface VerifiedIdentity {
  provider: OAuthProvider;
  subject: string;
  email: string;
  /** The profile's name, when it has one (at most 100 characters). */
  displayName?: string;
}

export interface IdentityProviders {
  /**
   * Where to send the user's browser: the provider's authorization endpoint with the flow's parameters. AppError
   * SERVICE_UNAVAILABLE when Google's discovery fails.
   */
  authorizationUrl(
    provider: OAuthProvider,
    client: OAuthClientCredentials,
    request: { redirectUri: string; state: string; codeChallenge: string },
  ): Promise<string>;
  /** Exchanges the code and reads the account; AppError OAUTH_EXCHANGE_FAILED on any failure. */
  exchange(
    provider: OAuthProvider,
    client: OAuthClientCredentials,
    request: { code: string; redirectUri: string; codeVerifier: string },
  ): Promise<VerifiedIdentity>;
}

const SCOPES: Record<OAuthProvider, string> = { google: 'openid email profile', github: 'read:user user:email' };
const TIMEOUT_SECONDS = 10;
const MAX_EMAIL_LENGTH = 254;
const MAX_DISPLAY_NAME_LENGTH = 100;

function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path}`;
}

const isHttp = (url: string) => new URL(url).protocol === 'http:';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function displayName(name: unknown): { displayName?: string } {
  const trimmed = typeof name === 'string' ? name.trim().slice(0, MAX_DISPLAY_NAME_LENGTH).trim() : '';
  return trimmed ? { displayName: trimmed } : {};
}

function noVerifiedEmail(provider: OAuthProvider): AppError {
  return new AppError('OAUTH_EXCHANGE_FAILED', {
    message: `The ${providerName(provider)} account has no verified email address`,
  });
}

/** The provider's address, checked for form: it becomes an operator's or user's email. */
function verifiedEmail(provider: OAuthProvider, email: unknown): string {
  if (typeof email !== 'string' || email.length > MAX_EMAIL_LENGTH || !/^[^\s@]+@[^\s@]+$/.test(email))
    throw noVerifiedEmail(provider);
  return email;
}

/**
 * What the log may keep of a failure. Library errors can carry the provider's response body (tokens included) in
 * their cause, so only names, codes and statuses are kept.
 */
function describeFailure(provider: OAuthProvider, err: unknown): Error {
  const e = (isRecord(err) ? err : {}) as {
    name?: unknown;
    code?: unknown;
    error?: unknown;
    status?: unknown;
    message?: unknown;
  };
  const parts = [e.name, e.code, e.error, e.status, e.message].filter(
    (p) => typeof p === 'string' || typeof p === 'number',
  );
  return new Error(`${providerName(provider)} sign-in failed: ${parts.join(' ')}`);
}

export function createIdentityProviders(
  settings: Pick<OAuthSettings, 'googleIssuerUrl' | 'githubOAuthUrl' | 'githubApiUrl'>,
): IdentityProviders {
  // Google's metadata is discovered once per process (its endpoints do not move); a failed discovery is retried on
  // the next sign-in. Its signing keys are shared between sign-ins the same way (the library refetches on rotation).
  let googleMetadata: Promise<oidc.ServerMetadata> | undefined;
  let googleKeys: oidc.ExportedJWKSCache | undefined;
  const github: oidc.ServerMetadata = {
    issuer: settings.githubOAuthUrl,
    authorization_endpoint: joinUrl(settings.githubOAuthUrl, 'login/oauth/authorize'),
    token_endpoint: joinUrl(settings.githubOAuthUrl, 'login/oauth/access_token'),
  };
  // http endpoints only come from configuration (tests, self-hosted stand-ins); openid-client refuses them otherwise.
  const insecure: Record<OAuthProvider, boolean> = {
    google: isHttp(settings.googleIssuerUrl),
    github: isHttp(settings.githubOAuthUrl) || isHttp(settings.githubApiUrl),
  };

  function discoverGoogle(client: OAuthClientCredentials): Promise<oidc.ServerMetadata> {
    if (!googleMetadata) {
      const discovering = oidc
        .discovery(new URL(settings.googleIssuerUrl), client.clientId, client.clientSecret, undefined, {
          timeout: TIMEOUT_SECONDS,
          ...(insecure.google ? { execute: [oidc.allowInsecureRequests] } : {}),
        })
        .then((config) => config.serverMetadata());
      discovering.catch(() => {
        if (googleMetadata === discovering) googleMetadata = undefined;
      });
      googleMetadata = discovering;
    }
    return googleMetadata;
  }

  async function configFor(provider: OAuthProvider, client: OAuthClientCredentials): Promise<oidc.Configuration> {
    const metadata = provider === 'google' ? await discoverGoogle(client) : github;
    const config = new oidc.Configuration(metadata, client.clientId, client.clientSecret);
    config.timeout = TIMEOUT_SECONDS;
    if (insecure[provider]) oidc.allowInsecureRequests(config);
    if (provider === 'google') {
      oidc.enableNonRepudiationChecks(config);
      if (googleKeys) oidc.setJwksCache(config, googleKeys);
    }
    return config;
  }

  async function googleIdentity(
    config: oidc.Configuration,
    tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers,
  ): Promise<VerifiedIdentity> {
    const claims = tokens.claims();
    if (!claims) throw new Error('the token response has no ID token');
    googleKeys = oidc.getJwksCache(config) ?? googleKeys;
    const profile = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
    if (profile.email_verified !== true) throw noVerifiedEmail('google');
    return {
      provider: 'google',
      subject: claims.sub,
      email: verifiedEmail('google', profile.email),
      ...displayName(profile.name),
    };
  }

  async function githubGet(config: oidc.Configuration, accessToken: string, path: string): Promise<unknown> {
    const headers = new Headers({ accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' });
    const res = await oidc.fetchProtectedResource(
      config,
      accessToken,
      new URL(joinUrl(settings.githubApiUrl, path)),
      'GET',
      undefined,
      headers,
    );
    if (!res.ok) throw new Error(`GET /${path} answered ${res.status}`);
    return res.json();
  }

  async function githubIdentity(config: oidc.Configuration, accessToken: string): Promise<VerifiedIdentity> {
    const user = await githubGet(config, accessToken, 'user');
    if (!isRecord(user) || !Number.isSafeInteger(user.id)) throw new Error('GET /user answered without an account id');
    const emails = await githubGet(config, accessToken, 'user/emails');
    const primary = Array.isArray(emails)
      ? emails.find(
          (e: unknown): e is Record<string, unknown> => isRecord(e) && e.primary === true && e.verified === true,
        )
      : undefined;
    if (!primary) throw noVerifiedEmail('github');
    return {
      provider: 'github',
      subject: String(user.id),
      email: verifiedEmail('github', primary.email),
      ...displayName(typeof user.name === 'string' && user.name.trim() ? user.name : user.login),
    };
  }

  return {
    async authorizationUrl(provider, client, request) {
      let config: oidc.Configuration;
      try {
        config = await configFor(provider, client);
      } catch (err) {
        // Only Google's discovery can fail here: the provider is down or GOOGLE_ISSUER_URL is wrong.
        throw new AppError('SERVICE_UNAVAILABLE', {
          message: `${providerName(provider)} could not be reached; retry`,
          headers: { 'Retry-After': '5' },
          cause: describeFailure(provider, err),
        });
      }
      return oidc.buildAuthorizationUrl(config, {
        redirect_uri: request.redirectUri,
        scope: SCOPES[provider],
        state: request.state,
        code_challenge: request.codeChallenge,
        code_challenge_method: 'S256',
      }).href;
    },

    async exchange(provider, client, request) {
      try {
        const config = await configFor(provider, client);
        // A generic grant rather than authorizationCodeGrant: the redirect URI must reach the token endpoint exactly
        // as the flow started (authorizationCodeGrant strips its query), and the authorization response (state) was
        // already checked against the stored flow (states.ts).
        const tokens = await oidc.genericGrantRequest(config, 'authorization_code', {
          code: request.code,
          redirect_uri: request.redirectUri,
          code_verifier: request.codeVerifier,
        });
        return provider === 'google'
          ? await googleIdentity(config, tokens)
          : await githubIdentity(config, tokens.access_token);
      } catch (err) {
        if (err instanceof AppError) throw err;
        throw new AppError('OAUTH_EXCHANGE_FAILED', {
          message: `${providerName(provider)} refused the sign-in or could not be reached; start again`,
          cause: describeFailure(provider, err),
        });
      }
    },
  };
}
