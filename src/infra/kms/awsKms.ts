// AWS KMS: GenerateDataKey (AES_256) and Decrypt under one symmetric KMS key, with the wallet's encryption context, so
// AWS itself refuses to unwrap a data key for another wallet and logs every unwrap in CloudTrail. Credentials come
// from the AWS SDK's default chain (environment, profile, instance or task role); `endpoint` points the client at a
// KMS-compatible service (LocalStack, a test server).
import {
  DecryptCommand,
  GenerateDataKeyCommand,
  IncorrectKeyException,
  InvalidCiphertextException,
  KMSClient,
  type KMSClientConfig,
} from '@aws-sdk/client-kms';
import { KmsDecryptError, type EncryptionContext, type KeyManagement } from './keyManagement';
import { KmsUnavailableError } from '../errors';

export interface AwsKmsSettings {
  /** Key id, ARN or alias of the symmetric KMS key that wraps the data keys. */
  keyId: string;
  region: string;
  endpoint?: string;
  /** Explicit credentials (tests); production leaves them to the default chain. */
  credentials?: KMSClientConfig['credentials'];
}

const DATA_KEY_BYTES = 32;

function asContext(context: EncryptionContext): Record<string, string> {
  return { appId: context.appId, walletId: context.walletId, network: context.network };
}

/** The SDK returns key material as a Uint8Array; a Buffer over the same memory, so zeroing it zeroes the original. */
function bufferOver(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function createAwsKms(settings: AwsKmsSettings): KeyManagement {
  const client = new KMSClient({
    region: settings.region,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
  });
  return {
    description: `AWS KMS key ${settings.keyId} in ${settings.region}${settings.endpoint ? ` via ${settings.endpoint}` : ''}`,
    async generateDataKey(context) {
      let out;
      try {
        out = await client.send(
          new GenerateDataKeyCommand({
            KeyId: settings.keyId,
            KeySpec: 'AES_256',
            EncryptionContext: asContext(context),
          }),
        );
      } catch (err) {
        throw new KmsUnavailableError(`KMS GenerateDataKey failed (${errorName(err)})`, { cause: err });
      }
      if (!out.Plaintext || out.Plaintext.byteLength !== DATA_KEY_BYTES || !out.CiphertextBlob || !out.KeyId) {
        out.Plaintext?.fill(0);
        throw new KmsUnavailableError('KMS GenerateDataKey answered without a 32-byte key, its ciphertext and key id');
      }
      return { plaintext: bufferOver(out.Plaintext), ciphertext: Buffer.from(out.CiphertextBlob), keyId: out.KeyId };
    },
    async decrypt(wrapped, context) {
      let out;
      try {
        out = await client.send(
          new DecryptCommand({
            CiphertextBlob: wrapped.ciphertext,
            KeyId: wrapped.keyId,
            EncryptionContext: asContext(context),
          }),
        );
      } catch (err) {
        // KMS says InvalidCiphertext for a wrong context as for altered bytes, by design: it does not say which.
        if (err instanceof InvalidCiphertextException || err instanceof IncorrectKeyException) {
          throw new KmsDecryptError(`KMS refused to decrypt the data key (${err.name})`);
        }
        throw new KmsUnavailableError(`KMS Decrypt failed (${errorName(err)})`, { cause: err });
      }
      if (!out.Plaintext || out.Plaintext.byteLength !== DATA_KEY_BYTES) {
        out.Plaintext?.fill(0);
        throw new KmsUnavailableError('KMS Decrypt answered without a 32-byte key');
      }
      return bufferOver(out.Plaintext);
    },
  };
}

function errorName(err: unknown): string {
  return err instanceof Error ? err.name : 'unknown error';
}
