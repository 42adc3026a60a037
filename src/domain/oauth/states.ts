// The `state` of an authorization-code flow: minted by the start operation, sent through the provider and back, and
// presented once to the callback. It binds the flow to what the start was for (provider, Dashboard or app, redirect
// URI, PKCE challenge), so a code obtained for one flow cannot finish another. Only an HMAC of the state is stored,
// and consuming it is one DELETE: of any number of concurrent callbacks with one state, exactly one gets it.
import { createHmac, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { calculatePKCECodeChallenge } from 'openid-client';
import type { ServiceSecrets } from '../../infra/secrets/serviceSecret';
import type { Audience } from '../sessions/accessTokens';
import { AppError } from '../errors';
import type { OAuthProvider } from './identityProviders';

/** How long a started sign-in may take to come back. */
const OAUTH_STATE_TTL_SECONDS = 600;

/** What a flow is for; the callback must present the same. */
export interface OAuthFlowBinding {
  provider: OAuthProvider;
  /** `operator` for the Dashboard, `user` for an app's end users. */
  audience: Audience;
  /** The app of a `user` flow. */
  appId?: string;
  redirectUri: string;
}

interface StateRow {
  provider: OAuthProvider;
  audience: Audience;
  app_id: string | null;
  redirect_uri: string;
  code_challenge: string;
  expires_at: Date;
}

type Secrets = Pick<ServiceSecrets, 'derive'>;

const TABLE = 'oauth_states';

function stateHash(secrets: Secrets, state: string): Buffer {
  return createHmac('sha256', secrets.derive('oauth-state')).update(state, 'utf8').digest();
}

/** A new state: 32 random bytes, base64url (43 characters). */
export function newOAuthState(): string {
  return randomBytes(32).toString('base64url');
}

/** Stores a started flow; returns when its state expires. */
export async function saveOAuthState(
  db: Knex,
  secrets: Secrets,
  input: { state: string; binding: OAuthFlowBinding; codeChallenge: string; now: Date },
): Promise<Date> {
  const expiresAt = new Date(input.now.getTime() + OAUTH_STATE_TTL_SECONDS * 1000);
  await db(TABLE).insert({
    state_hash: stateHash(secrets, input.state),
    provider: input.binding.provider,
    audience: input.binding.audience,
    app_id: input.binding.appId ?? null,
    redirect_uri: input.binding.redirectUri,
    code_challenge: input.codeChallenge,
    created_at: input.now,
    expires_at: expiresAt,
  });
  return expiresAt;
}

/**
 * Uses up `state` and checks that it was started for this flow, unexpired, with the challenge of `codeVerifier`.
 * Any mismatch answers OAUTH_STATE_INVALID without saying which, and the state is gone either way: a state presented
 * with the wrong verifier or for the wrong flow is not left for a second try.
 */
export async function consumeOAuthState(
  db: Knex,
  secrets: Secrets,
  input: { state: string; binding: OAuthFlowBinding; codeVerifier: string; now: Date },
): Promise<void> {
  const [row] = (await db(TABLE)
    .where({ state_hash: stateHash(secrets, input.state) })
    .delete()
    .returning('*')) as StateRow[];
  const { binding } = input;
  const valid =
    row !== undefined &&
    row.expires_at.getTime() > input.now.getTime() &&
    row.provider === binding.provider &&
    row.audience === binding.audience &&
    row.app_id === (binding.appId ?? null) &&
    row.redirect_uri === binding.redirectUri &&
    row.code_challenge === (await calculatePKCECodeChallenge(input.codeVerifier));
  if (!valid) {
    throw new AppError('OAUTH_STATE_INVALID', {
      message: 'The sign-in state is unknown, expired, already used or for another sign-in; start again',
    });
  }
}

/** Deletes expired states (the maintenance loop); returns how many. */
export async function pruneOAuthStates(db: Knex, now: Date): Promise<number> {
  return db(TABLE).where('expires_at', '<=', now).delete();
}
