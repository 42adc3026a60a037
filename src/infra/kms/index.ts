// Builds the configured key management (Config.kms): the local master key file by default, AWS KMS in production.
import type { KmsSettings } from '../../config';
import { createAwsKms } from './awsKms';
import type { KeyManagement } from './keyManagement';
import { openLocalKms } from './localKms';

export function createKeyManagement(settings: KmsSettings): KeyManagement {
  return settings.provider === 'aws' ? createAwsKms(settings) : openLocalKms(settings.masterKeyFile);
}
