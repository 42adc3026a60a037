// What an app stores for its third-party providers (KYC providers: kyc_provider_settings; ramp providers:
// ramp_provider_settings): one row per provider, replaced as a whole list, with the credentials each takes sealed
// under a data key of the key management (envelope encryption, as wallet keys are: the data key wrapped for this app
// and provider) and only unsealed for a call to the provider. Reads of the settings answer `credentialsSet`, never the
// values. What each kind checks before saving stays with it (kyc/settings.ts, ramps/settings.ts).
import type { Knex } from 'knex';
import { open, seal } from '../../infra/kms/aesGcm';
import { contextBytes, type EncryptionContext } from '../../infra/kms/keyManagement';
import { recordAudit, type AuditActor } from '../audit/auditLog';
import type { Deps } from '../deps';
import type { App } from './store';

export type ProviderKind = 'kyc' | 'ramp';

/** The stored columns of sealed credentials. */
export interface SealedCredentials {
  credentials_sealed: Buffer;
  credentials_data_key: Buffer;
  kms_key_id: string;
}

/** The context credentials are sealed for: the app and the provider, on the app's network. */
const credentialsContext = (
  app: Pick<App, 'id' | 'network'>,
  kind: ProviderKind,
  providerId: string,
): EncryptionContext => ({
  appId: app.id,
  walletId: `${kind}:${providerId}`, // the key management's context names what is sealed; here, not a wallet
  network: app.network,
});

export async function sealProviderCredentials(
  deps: Pick<Deps, 'kms'>,
  app: Pick<App, 'id' | 'network'>,
  kind: ProviderKind,
  providerId: string,
  credentials: Record<string, string>,
): Promise<SealedCredentials> {
  const context = credentialsContext(app, kind, providerId);
  const dataKey = await deps.kms.generateDataKey(context);
  try {
    return {
      credentials_sealed: seal(dataKey.plaintext, Buffer.from(JSON.stringify(credentials)), contextBytes(context)),
      credentials_data_key: dataKey.ciphertext,
      kms_key_id: dataKey.keyId,
    };
  } finally {
    dataKey.plaintext.fill(0);
  }
}

/** The credentials unsealed; empty when none are stored. */
export async function openProviderCredentials(
  deps: Pick<Deps, 'kms'>,
  app: Pick<App, 'id' | 'network'>,
  kind: ProviderKind,
  providerId: string,
  row: { [K in keyof SealedCredentials]: SealedCredentials[K] | null } | undefined,
): Promise<Record<string, string>> {
  if (!row?.credentials_sealed || !row.credentials_data_key || !row.kms_key_id) return {};
  const context = credentialsContext(app, kind, providerId);
  const key = await deps.kms.decrypt({ ciphertext: row.credentials_data_key, keyId: row.kms_key_id }, context);
  try {
    const plain = open(key, row.credentials_sealed, contextBytes(context));
    if (!plain) throw new Error(`the stored ${kind} ${providerId} credentials do not open`);
    return JSON.parse(plain.toString('utf8')) as Record<string, string>;
  } finally {
    key.fill(0);
  }
}

const TABLES: Record<ProviderKind, string> = { kyc: 'kyc_provider_settings', ramp: 'ramp_provider_settings' };

/** The stored row of one provider (its kind's own columns besides these). */
export type ProviderSettingsRow = {
  app_id: string;
  provider_id: string;
  enabled: boolean;
  updated_at: Date;
} & { [K in keyof SealedCredentials]: SealedCredentials[K] | null };

/** The `kind` settings table, its rows typed with the kind's own columns. */
export const providerSettingsRows = <Row extends ProviderSettingsRow = ProviderSettingsRow>(
  db: Knex,
  kind: ProviderKind,
) => db<Row>(TABLES[kind]);

/** A provider of the new list: its kind's own columns (`levels`, `assets`) and new credentials, if any. */
export interface ProviderSettingsInput {
  providerId: string;
  enabled: boolean;
  columns: Record<string, unknown>;
  credentials?: Record<string, string>;
}

/**
 * Replaces the app's `kind` providers with `providers`: new credentials sealed (before the database transaction), the
 * stored ones kept for a provider listed without, a provider left out removed with its credentials; audited as
 * `<kind>_settings.updated` naming the providers and whose credentials changed, never the credentials.
 */
export async function replaceProviderSettings(
  deps: Pick<Deps, 'db' | 'kms'>,
  app: Pick<App, 'id' | 'network'>,
  kind: ProviderKind,
  providers: ProviderSettingsInput[],
  ctx: { actor: AuditActor; at: Date; ip?: string },
): Promise<void> {
  const sealed = new Map<string, SealedCredentials>();
  for (const p of providers)
    if (p.credentials)
      sealed.set(p.providerId, await sealProviderCredentials(deps, app, kind, p.providerId, p.credentials));
  await deps.db.transaction(async (trx) => {
    // Concurrent updates of one app run one after the other (else both insert a provider: a duplicate key), and
    // omitted credentials keep what the update before this one stored.
    await trx('apps').where({ id: app.id }).forUpdate().first('id');
    const current = new Map(
      (await providerSettingsRows(trx, kind).where({ app_id: app.id })).map((r) => [r.provider_id, r]),
    );
    await providerSettingsRows(trx, kind).where({ app_id: app.id }).delete();
    for (const p of providers) {
      const keep = current.get(p.providerId);
      await trx(TABLES[kind]).insert({
        app_id: app.id,
        provider_id: p.providerId,
        enabled: p.enabled,
        ...p.columns,
        ...(sealed.get(p.providerId) ?? {
          credentials_sealed: keep?.credentials_sealed ?? null,
          credentials_data_key: keep?.credentials_data_key ?? null,
          kms_key_id: keep?.kms_key_id ?? null,
        }),
        updated_at: ctx.at,
      });
    }
    await recordAudit(trx, {
      appId: app.id,
      action: kind === 'kyc' ? 'kyc_settings.updated' : 'ramp_settings.updated',
      actor: ctx.actor,
      ...(ctx.ip !== undefined ? { ip: ctx.ip } : {}),
      details: {
        providers: providers.map((p) => `${p.providerId}${p.enabled ? '' : ' (off)'}`).join(', ') || 'none',
        credentialsChanged:
          providers
            .filter((p) => p.credentials)
            .map((p) => p.providerId)
            .join(', ') || 'none',
      },
      at: ctx.at,
    });
  });
}

/** Whether the app's `kind` settings were ever saved (an emptied list stays empty: no sandbox comes back by default). */
export async function providerSettingsEverSaved(db: Knex, appId: string, kind: ProviderKind): Promise<boolean> {
  const action = kind === 'kyc' ? 'kyc_settings.updated' : 'ramp_settings.updated';
  return Boolean(await db('audit_log').where({ app_id: appId, action }).first('id'));
}
