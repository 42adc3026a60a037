// An app's KYC providers: which it offers, at which levels, with which credentials. Stored as every provider list of
// an app is (apps/providerSettings.ts: credentials sealed with the key management, only unsealed to open a session;
// reads answer `credentialsSet`, never the values).
// A testnet app of a development service that never saved settings offers the sandbox provider.
import type { Knex } from 'knex';
import type { App } from '../apps/store';
import type { AuditActor } from '../audit/auditLog';
import type { Deps } from '../deps';
import { AppError } from '../errors';
import {
  openProviderCredentials,
  providerSettingsEverSaved,
  providerSettingsRows,
  replaceProviderSettings,
  type ProviderSettingsRow,
} from '../apps/providerSettings';
import type { KycLevel, KycProvider } from './providers';
import { sandboxKycProvider } from './sandbox';

/** Every KYC provider this service supports, by id. */
export const KYC_PROVIDERS: ReadonlyMap<string, KycProvider> = new Map([[sandboxKycProvider.id, sandboxKycProvider]]);

export function kycProviderOf(providerId: string): KycProvider {
  const provider = KYC_PROVIDERS.get(providerId);
  if (!provider) throw new AppError('SDK_KYC_PROVIDER_NOT_FOUND', { message: `Unknown KYC provider: ${providerId}` });
  return provider;
}

type SettingsRow = ProviderSettingsRow & { levels: KycLevel[] };

/** One configured provider as the contract's KycSettings has it. */
export interface KycProviderSetting {
  providerId: string;
  enabled: boolean;
  levels: KycLevel[];
  credentialsSet: boolean;
}

const rows = (db: Knex) => providerSettingsRows<SettingsRow>(db, 'kyc');

/** The app's providers: as saved, or (never saved) the sandbox where it is offered. */
export async function kycSettingsOf(deps: Pick<Deps, 'db' | 'kyc'>, app: App): Promise<KycProviderSetting[]> {
  const saved = await rows(deps.db).where({ app_id: app.id }).orderBy('provider_id');
  if (
    saved.length === 0 &&
    sandboxKycProvider.availableFor(deps, app) &&
    !(await providerSettingsEverSaved(deps.db, app.id, 'kyc'))
  )
    return [
      {
        providerId: sandboxKycProvider.id,
        enabled: true,
        levels: [...sandboxKycProvider.levels],
        credentialsSet: false,
      },
    ];
  return saved.map((r) => ({
    providerId: r.provider_id,
    enabled: r.enabled,
    levels: r.levels,
    credentialsSet: r.credentials_sealed !== null,
  }));
}

/** The contract's KycSettingsInput. */
export interface KycSettingsInput {
  providers: { providerId: string; enabled: boolean; levels: KycLevel[]; credentials?: Record<string, string> }[];
}

/** Replaces the app's providers (see updateKycSettings in the contract). Audited without the credentials. */
export async function updateKycSettings(
  deps: Pick<Deps, 'db' | 'kms' | 'kyc'>,
  app: App,
  input: KycSettingsInput,
  ctx: { actor: AuditActor; at: Date; ip?: string },
): Promise<KycProviderSetting[]> {
  // 1. every provider known (404), then the list consistent (422, every problem named)
  const providers = input.providers.map((p) => kycProviderOf(p.providerId));
  const stored = new Map((await rows(deps.db).where({ app_id: app.id })).map((r) => [r.provider_id, r]));
  const problems: Record<string, string[]> = {};
  const problem = (field: string, message: string) => (problems[field] ??= []).push(message);
  const seen = new Set<string>();
  input.providers.forEach((p, i) => {
    const provider = providers[i]!;
    if (seen.has(p.providerId)) problem(`providers.${i}.providerId`, 'appears more than once');
    seen.add(p.providerId);
    if (!provider.availableFor(deps, app) && provider.credentialNames.length === 0)
      problem(`providers.${i}.providerId`, `is not offered to ${app.network} apps on this service`);
    for (const level of p.levels)
      if (!provider.levels.includes(level))
        problem(`providers.${i}.levels`, `${provider.name} does not offer ${level}`);
    if (!p.enabled) return;
    if (p.levels.length === 0) problem(`providers.${i}.levels`, 'name at least one level to enable the provider');
    const hasCredentials = p.credentials !== undefined || stored.get(p.providerId)?.credentials_sealed;
    if (provider.credentialNames.length > 0 && !hasCredentials)
      problem(`providers.${i}.credentials`, 'required to enable the provider');
    for (const name of provider.credentialNames)
      if (p.credentials && !p.credentials[name]) problem(`providers.${i}.credentials`, `${name} is required`);
  });
  if (Object.keys(problems).length > 0)
    throw new AppError('KYC_SETTINGS_INVALID', {
      message: 'The KYC settings are not consistent',
      details: { fieldErrors: problems },
    });
  // 2. stored (credentials sealed) and audited
  await replaceProviderSettings(
    deps,
    app,
    'kyc',
    input.providers.map((p) => ({
      providerId: p.providerId,
      enabled: p.enabled,
      columns: { levels: p.levels },
      ...(p.credentials ? { credentials: p.credentials } : {}),
    })),
    ctx,
  );
  return kycSettingsOf(deps, app);
}

/** The provider's stored credentials, unsealed (empty when it takes none); only to open a session. */
export async function providerCredentials(
  deps: Pick<Deps, 'db' | 'kms'>,
  app: App,
  providerId: string,
): Promise<Record<string, string>> {
  const row = await rows(deps.db).where({ app_id: app.id, provider_id: providerId }).first();
  return openProviderCredentials(deps, app, 'kyc', providerId, row);
}
