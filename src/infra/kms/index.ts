// Builds the configured key management (Config.kms): the local master key file by default, AWS KMS in production,
// with the bounded cache of unwrapped data keys (Config.dataKeyCache) in front.
import type { DataKeyCacheSettings, KmsSettings } from '../../config';
import { createAwsKms } from './awsKms';
import type { KeyManagement } from './keyManagement';
import { openLocalKms } from './localKms';
import { withDataKeyCache } from './dataKeyCache';

/** The configured key management, behind the data-key cache when `cache` is given and not turned off. */
export function createKeyManagement(settings: KmsSettings, cache?: DataKeyCacheSettings): KeyManagement {
  const kms = settings.provider === 'aws' ? createAwsKms(settings) : openLocalKms(settings.masterKeyFile);
  return cache ? withDataKeyCache(kms, cache) : kms;
}
