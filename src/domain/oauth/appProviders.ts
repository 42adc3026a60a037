// An app's end-user sign-in providers (Dashboard, Settings): whether email codes, Google and GitHub are offered, and
// the app's own Google and GitHub client credentials. Client secrets are write-only: stored sealed (clientSecrets.ts),
// answered only as `clientSecretSet`, opened only to talk to the provider. An app without stored settings offers
// email codes only.
import type { Knex } from 'knex';
import type { OAuthClientCredentials } from '../../config';
import { withTx } from '../../infra/db/database';
import type { ServiceSecrets } from '../../infra/secrets/serviceSecret';
import { AppError } from '../errors';
import { openClientSecret, sealClientSecret } from './clientSecrets';
import { OAUTH_PROVIDERS, providerName, type OAuthProvider } from './identityProviders';

export interface OAuthProviderSettings {
  enabled: boolean;
  clientId: string | null;
  clientSecretSet: boolean;
}

export interface AuthProviders {
  email: { enabled: boolean };
  google: OAuthProviderSettings;
  github: OAuthProviderSettings;
  /** Sign-in with the user's own Stellar wallet (SEP-10): off unless the app turns it on. */
  stellar: { enabled: boolean };
}

/** A change of one OAuth provider: an undefined clientId or clientSecret keeps the stored value, null deletes it. */
export interface OAuthProviderChange {
  enabled: boolean;
  clientId?: string | null;
  clientSecret?: string | null;
}

export interface AuthProvidersChange {
  email: { enabled: boolean };
  google: OAuthProviderChange;
  github: OAuthProviderChange;
  /** Omitted: the stored setting stays. */
  stellar?: { enabled: boolean };
}

interface ProviderRow {
  provider: 'email' | 'stellar' | OAuthProvider;
  enabled: boolean;
  client_id: string | null;
  client_secret_sealed: Buffer | null;
}

type Secrets = Pick<ServiceSecrets, 'derive'>;

const TABLE = 'app_auth_providers';

async function rowsOf(db: Knex, appId: string): Promise<Map<ProviderRow['provider'], ProviderRow>> {
  const rows = await db(TABLE)
    .where({ app_id: appId })
    .select<ProviderRow[]>('provider', 'enabled', 'client_id', 'client_secret_sealed');
  return new Map(rows.map((r) => [r.provider, r]));
}

function oauthSettings(row: ProviderRow | undefined): OAuthProviderSettings {
  return {
    enabled: row?.enabled ?? false,
    clientId: row?.client_id ?? null,
    clientSecretSet: Boolean(row?.client_secret_sealed),
  };
}

export async function readAuthProviders(db: Knex, appId: string): Promise<AuthProviders> {
  const rows = await rowsOf(db, appId);
  return {
    email: { enabled: rows.get('email')?.enabled ?? true },
    google: oauthSettings(rows.get('google')),
    github: oauthSettings(rows.get('github')),
    stellar: { enabled: rows.get('stellar')?.enabled ?? false },
  };
}

/**
 * Replaces the app's provider settings (AuthProvidersInput semantics) in one transaction; concurrent updates of one
 * app run one after the other, so "enabled needs a client id and a secret" holds for the stored result.
 * OAUTH_PROVIDER_NOT_CONFIGURED (nothing written) when Google or GitHub would be enabled without both.
 */
export async function updateAuthProviders(
  db: Knex,
  secrets: Secrets,
  appId: string,
  change: AuthProvidersChange,
  now: Date,
): Promise<AuthProviders> {
  return withTx(db, async (trx) => {
    await trx('apps').where({ id: appId }).forUpdate().first('id');
    const stored = await rowsOf(trx, appId);
    const rows: (ProviderRow & { app_id: string; updated_at: Date })[] = [
      {
        app_id: appId,
        provider: 'email',
        enabled: change.email.enabled,
        client_id: null,
        client_secret_sealed: null,
        updated_at: now,
      },
    ];
    if (change.stellar) {
      rows.push({
        app_id: appId,
        provider: 'stellar',
        enabled: change.stellar.enabled,
        client_id: null,
        client_secret_sealed: null,
        updated_at: now,
      });
    }
    for (const provider of OAUTH_PROVIDERS) {
      const next = change[provider];
      const before = stored.get(provider);
      const clientId = next.clientId === undefined ? (before?.client_id ?? null) : next.clientId;
      const sealed =
        next.clientSecret === undefined
          ? (before?.client_secret_sealed ?? null)
          : next.clientSecret === null
            ? null
            : sealClientSecret(secrets, { appId, provider }, next.clientSecret);
      if (next.enabled && (!clientId || !sealed)) {
        throw new AppError('OAUTH_PROVIDER_NOT_CONFIGURED', {
          message: `${providerName(provider)} needs a client id and a client secret`,
        });
      }
      rows.push({
        app_id: appId,
        provider,
        enabled: next.enabled,
        client_id: clientId,
        client_secret_sealed: sealed,
        updated_at: now,
      });
    }
    await trx(TABLE).insert(rows).onConflict(['app_id', 'provider']).merge();
    return readAuthProviders(trx, appId);
  });
}

/**
 * A sign-in provider without OAuth credentials must be on for the app: 403 AUTH_PROVIDER_DISABLED otherwise
 * ("Disabling a provider stops new sign-ins with it"; sessions already started are not touched). Email codes are on
 * unless turned off; Stellar wallet sign-in is off unless turned on. Google and GitHub are checked by appOAuthClient.
 */
async function requireProviderOn(db: Knex, appId: string, provider: 'email' | 'stellar', name: string): Promise<void> {
  const row = await db(TABLE)
    .where({ app_id: appId, provider })
    .first<Pick<ProviderRow, 'enabled'> | undefined>('enabled');
  const enabled = row?.enabled ?? provider === 'email';
  if (!enabled) throw new AppError('AUTH_PROVIDER_DISABLED', { message: `${name} sign-in is turned off for this app` });
}

export const requireEmailSignIn = (db: Knex, appId: string) => requireProviderOn(db, appId, 'email', 'Email');
export const requireStellarSignIn = (db: Knex, appId: string) =>
  requireProviderOn(db, appId, 'stellar', 'Stellar wallet');

/** The app's client for `provider` when that provider is enabled (enabling requires both credentials), else undefined. */
export async function appOAuthClient(
  db: Knex,
  secrets: Secrets,
  appId: string,
  provider: OAuthProvider,
): Promise<OAuthClientCredentials | undefined> {
  const row = await db(TABLE)
    .where({ app_id: appId, provider })
    .first<ProviderRow | undefined>('enabled', 'client_id', 'client_secret_sealed');
  if (!row?.enabled || !row.client_id || !row.client_secret_sealed) return undefined;
  return {
    clientId: row.client_id,
    clientSecret: openClientSecret(secrets, { appId, provider }, row.client_secret_sealed),
  };
}

/** The settings as the contract shows them (AuthProviders schema): no secret, an absent client id left out. */
export function authProvidersView(p: AuthProviders) {
  const oauth = (s: OAuthProviderSettings) => ({
    enabled: s.enabled,
    ...(s.clientId ? { clientId: s.clientId } : {}),
    clientSecretSet: s.clientSecretSet,
  });
  return {
    email: { enabled: p.email.enabled },
    google: oauth(p.google),
    github: oauth(p.github),
    stellar: { enabled: p.stellar.enabled },
  };
}
