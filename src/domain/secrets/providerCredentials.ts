// Credentials an app stores for a third-party provider (a KYC provider, a ramp provider): sealed under a data key of
// the key management (envelope encryption, as wallet keys are: the data key wrapped for this app and provider),
// stored beside it, and only unsealed for a call to the provider. Reads of the settings answer `credentialsSet`, never
// the values.
import { open, seal } from '../../infra/kms/aesGcm';
import { contextBytes, type EncryptionContext } from '../../infra/kms/keyManagement';
import type { App } from '../apps/store';
import type { Deps } from '../deps';

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
