// An app's ramp providers: which it offers, the app's assets users may ramp through each, and the credentials each
// takes (stored as every provider list of an app is, apps/providerSettings.ts: sealed with the key management; reads
// answer `credentialsSet`, never the values). A testnet app of a development service (RAMPS_SANDBOX) that never saved its ramp settings offers the
// sandbox provider with the assets the sandbox can settle (the service's demo USDC), when the app has any.
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
import { rampProviderOf } from './registry';
import { sandboxAssetsOf, sandboxRampProvider } from './sandbox';

type SettingsRow = ProviderSettingsRow & { assets: string[] };

/** One configured provider, as the contract's RampSettings has it. */
export interface RampProviderSetting {
  providerId: string;
  enabled: boolean;
  assets: string[];
  credentialsSet: boolean;
}

const rows = (db: Knex) => providerSettingsRows<SettingsRow>(db, 'ramp');

type SettingsDeps = Pick<Deps, 'db' | 'ramps' | 'secrets'>;

/** The app's providers: as saved, or (never saved) the sandbox where it is offered and can settle an app asset. */
export async function rampSettingsOf(deps: SettingsDeps, app: App): Promise<RampProviderSetting[]> {
  const saved = await rows(deps.db).where({ app_id: app.id }).orderBy('provider_id');
  if (
    saved.length === 0 &&
    sandboxRampProvider.availableFor(deps, app) &&
    !(await providerSettingsEverSaved(deps.db, app.id, 'ramp'))
  ) {
    const assets = sandboxAssetsOf(deps, app);
    return assets.length > 0 ? [{ providerId: 'sandbox', enabled: true, assets, credentialsSet: false }] : [];
  }
  return saved.map((r) => ({
    providerId: r.provider_id,
    enabled: r.enabled,
    assets: r.assets,
    credentialsSet: r.credentials_sealed !== null,
  }));
}

/** The contract's RampSettingsInput. */
export interface RampSettingsInput {
  providers: { providerId: string; enabled: boolean; assets: string[]; credentials?: Record<string, string> }[];
}

/** Replaces the app's providers (see updateRampSettings in the contract). Audited without the credentials. */
export async function updateRampSettings(
  deps: Pick<Deps, 'db' | 'kms' | 'ramps' | 'secrets'>,
  app: App,
  input: RampSettingsInput,
  ctx: { actor: AuditActor; at: Date; ip?: string },
): Promise<RampProviderSetting[]> {
  // 1. every provider known (404); every asset the app's (422); the list consistent (422, every problem named);
  //    an enabled provider with the credentials it takes (422)
  const providers = input.providers.map((p) => rampProviderOf(p.providerId));
  input.providers.forEach((p) => {
    const unknown = p.assets.filter((a) => !app.assets.includes(a));
    if (unknown.length > 0)
      throw new AppError('SDK_RAMPS_ASSET_NOT_ENABLED', {
        message: `Not an asset of the app: ${unknown.join(', ')} (configure it in the app's settings first)`,
      });
  });
  const stored = new Map((await rows(deps.db).where({ app_id: app.id })).map((r) => [r.provider_id, r]));
  const problems: Record<string, string[]> = {};
  const problem = (field: string, message: string) => (problems[field] ??= []).push(message);
  const seen = new Set<string>();
  input.providers.forEach((p, i) => {
    const provider = providers[i]!;
    if (seen.has(p.providerId)) problem(`providers.${i}.providerId`, 'appears more than once');
    seen.add(p.providerId);
    if (!provider.availableFor(deps, app))
      problem(`providers.${i}.providerId`, `is not offered to ${app.network} apps on this service`);
    const known = [...provider.credentialNames, ...provider.optionalCredentialNames];
    for (const name of Object.keys(p.credentials ?? {}))
      if (!known.includes(name))
        problem(
          `providers.${i}.credentials`,
          `${provider.name} takes ${known.length > 0 ? known.join(', ') : 'no credentials'}, not ${name}`,
        );
  });
  if (Object.keys(problems).length > 0)
    throw new AppError('RAMP_SETTINGS_INVALID', {
      message: 'The ramp settings are not consistent',
      details: { fieldErrors: problems },
    });
  input.providers.forEach((p, i) => {
    const provider = providers[i]!;
    if (!p.enabled || provider.credentialNames.length === 0) return;
    const hasStored = stored.get(p.providerId)?.credentials_sealed;
    const missing = provider.credentialNames.filter((name) => (p.credentials ? !p.credentials[name] : !hasStored));
    if (missing.length > 0)
      throw new AppError('SDK_RAMPS_PROVIDER_NOT_CONFIGURED', {
        message: `${provider.name} needs ${missing.join(' and ')} to be enabled`,
        details: { fieldErrors: { [`providers.${i}.credentials`]: missing.map((n) => `${n} is required`) } },
      });
  });
  // 2. stored (credentials sealed) and audited
  await replaceProviderSettings(
    deps,
    app,
    'ramp',
    input.providers.map((p) => ({
      providerId: p.providerId,
      enabled: p.enabled,
      columns: { assets: p.assets },
      ...(p.credentials ? { credentials: p.credentials } : {}),
    })),
    ctx,
  );
  return rampSettingsOf(deps, app);
}

/** The provider's stored credentials, unsealed (empty when it takes none); only for a call to the provider. */
export async function rampCredentials(
  deps: Pick<Deps, 'db' | 'kms'>,
  app: App,
  providerId: string,
): Promise<Record<string, string>> {
  const row = await rows(deps.db).where({ app_id: app.id, provider_id: providerId }).first();
  return openProviderCredentials(deps, app, 'ramp', providerId, row);
}
