// A stored key as the Dashboard API shows it (the contract's ApiKey and ApiKeyWithSecret): the status is derived from
// the clock at answer time, and the key in clear appears only in the answer that minted it.
import type { OperationTypes } from '../../../generated/server/catalogue.gen';
import type { ApiKeyRecord, CreatedApiKey } from '../../domain/apiKeys/apiKeys';
import { apiKeyStatus } from '../../domain/apiKeys/lifecycle';

export type ApiKeyView = OperationTypes['listApiKeys']['content']['keys'][number];
export type ApiKeyWithSecretView = OperationTypes['createApiKey']['content'];

export function toApiKeyView(key: ApiKeyRecord, now: Date): ApiKeyView {
  return {
    keyId: key.id,
    type: key.type,
    network: key.network,
    prefix: key.displayPrefix,
    ...(key.label !== null ? { label: key.label } : {}),
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    expiresAt: key.expiresAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
    status: apiKeyStatus(key, now),
  };
}

/** The only view with the key in clear: for the answer of the request that minted it. */
export function toApiKeyWithSecretView(key: CreatedApiKey, now: Date): ApiKeyWithSecretView {
  return { ...toApiKeyView(key, now), key: key.key };
}
