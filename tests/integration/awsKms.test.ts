// The AWS KMS key management: against aws-sdk-client-mock (exact commands, error mapping, zeroing of the SDK's key
// buffer), against a KMS-protocol HTTP endpoint (the real client, a real signed exchange), and the whole service
// started with KMS_PROVIDER=aws creating and using wallets through that endpoint.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DecryptCommand,
  DisabledException,
  GenerateDataKeyCommand,
  InvalidCiphertextException,
  KMSClient,
} from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { Keypair } from '@stellar/stellar-sdk';
import { createAwsKms } from '../../src/infra/kms/awsKms';
import { KmsDecryptError, type EncryptionContext } from '../../src/infra/kms/keyManagement';
import { withWalletKeypair } from '../../src/domain/wallets/custody';
import { findAppWallet } from '../../src/domain/wallets/appWallets';
import { startFakeKms, type FakeKms } from '../support/kmsServer';
import { signInOperator } from '../support/operators';
import { startTestService } from '../support/service';
import { KmsUnavailableError } from '../../src/infra/errors';

const context: EncryptionContext = { appId: 'app_A', walletId: 'wal_A', network: 'testnet' };
const KEY_ARN = 'arn:aws:kms:eu-west-1:111122223333:key/abcd';

describe('AWS KMS against aws-sdk-client-mock', () => {
  const kmsMock = mockClient(KMSClient);
  after(() => kmsMock.restore());

  test('GenerateDataKey asks for an AES_256 key under the configured key with the wallet context', async () => {
    kmsMock.reset();
    const plaintext = new Uint8Array(32).fill(7);
    kmsMock
      .on(GenerateDataKeyCommand)
      .resolves({ Plaintext: plaintext, CiphertextBlob: new Uint8Array([1, 2, 3]), KeyId: KEY_ARN });
    const kms = createAwsKms({ keyId: 'alias/onboard', region: 'eu-west-1' });
    const key = await kms.generateDataKey(context);
    assert.deepEqual(kmsMock.commandCalls(GenerateDataKeyCommand)[0]!.args[0].input, {
      KeyId: 'alias/onboard',
      KeySpec: 'AES_256',
      EncryptionContext: { appId: 'app_A', walletId: 'wal_A', network: 'testnet' },
    });
    assert.equal(key.keyId, KEY_ARN, 'the ARN KMS answers, not the alias, is what is stored');
    assert.deepEqual(key.ciphertext, Buffer.from([1, 2, 3]));
    assert.deepEqual(key.plaintext, Buffer.alloc(32, 7));
    key.plaintext.fill(0);
    assert.ok(
      plaintext.every((b) => b === 0),
      "zeroing the data key zeroes the SDK's own buffer: no copy is left behind",
    );
  });

  test('Decrypt sends the ciphertext, the key and the context; a refusal is a KmsDecryptError, other faults are KmsUnavailableError (503 SERVICE_UNAVAILABLE)', async () => {
    kmsMock.reset();
    kmsMock.on(DecryptCommand).resolves({ Plaintext: new Uint8Array(32).fill(9), KeyId: KEY_ARN });
    const kms = createAwsKms({ keyId: 'alias/onboard', region: 'eu-west-1' });
    const plaintext = await kms.decrypt({ ciphertext: Buffer.from([4, 5]), keyId: KEY_ARN }, context);
    assert.deepEqual(plaintext, Buffer.alloc(32, 9));
    assert.deepEqual(kmsMock.commandCalls(DecryptCommand)[0]!.args[0].input, {
      CiphertextBlob: Buffer.from([4, 5]),
      KeyId: KEY_ARN,
      EncryptionContext: { appId: 'app_A', walletId: 'wal_A', network: 'testnet' },
    });
    kmsMock.on(DecryptCommand).rejects(new InvalidCiphertextException({ message: 'bad context', $metadata: {} }));
    await assert.rejects(kms.decrypt({ ciphertext: Buffer.from([4, 5]), keyId: KEY_ARN }, context), KmsDecryptError);
    kmsMock.on(DecryptCommand).rejects(new DisabledException({ message: 'the key is disabled', $metadata: {} }));
    await assert.rejects(
      kms.decrypt({ ciphertext: Buffer.from([4, 5]), keyId: KEY_ARN }, context),
      (err) => err instanceof KmsUnavailableError && err.cause instanceof DisabledException,
    );
  });

  test('an answer without a 32-byte key is refused, and whatever key material it held is zeroed', async () => {
    kmsMock.reset();
    const short = new Uint8Array(16).fill(3);
    kmsMock
      .on(GenerateDataKeyCommand)
      .resolves({ Plaintext: short, CiphertextBlob: new Uint8Array([1]), KeyId: KEY_ARN });
    const kms = createAwsKms({ keyId: 'alias/onboard', region: 'eu-west-1' });
    await assert.rejects(kms.generateDataKey(context), /32-byte key/);
    assert.ok(short.every((b) => b === 0));
  });
});

describe('AWS KMS over HTTP (the real client against a KMS-protocol endpoint)', () => {
  let fake: FakeKms;
  before(async () => {
    fake = await startFakeKms();
  });
  after(async () => {
    await fake?.stop();
  });

  test('GenerateDataKey then Decrypt round-trip through signed JSON 1.1 requests', async () => {
    const kms = createAwsKms({
      keyId: 'alias/onboard',
      region: 'us-east-1',
      endpoint: fake.url,
      credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test-secret' },
    });
    const key = await kms.generateDataKey(context);
    assert.equal(key.keyId, fake.keyArn);
    assert.deepEqual(await kms.decrypt(key, context), key.plaintext);
    const [generate, decrypt] = fake.requests.slice(-2);
    assert.equal(generate!.target, 'TrentService.GenerateDataKey');
    assert.equal(generate!.contentType, 'application/x-amz-json-1.1');
    assert.match(
      generate!.authorization ?? '',
      /^AWS4-HMAC-SHA256 Credential=AKIDTEST\/\d{8}\/us-east-1\/kms\/aws4_request/,
    );
    assert.deepEqual(generate!.body, {
      KeyId: 'alias/onboard',
      KeySpec: 'AES_256',
      EncryptionContext: { appId: 'app_A', walletId: 'wal_A', network: 'testnet' },
    });
    assert.equal(decrypt!.target, 'TrentService.Decrypt');
    assert.equal(decrypt!.body.KeyId, fake.keyArn);
    assert.equal(decrypt!.body.CiphertextBlob, key.ciphertext.toString('base64'));
  });

  test("the endpoint's InvalidCiphertextException for another wallet's context is a KmsDecryptError", async () => {
    const kms = createAwsKms({
      keyId: 'alias/onboard',
      region: 'us-east-1',
      endpoint: fake.url,
      credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test-secret' },
    });
    const key = await kms.generateDataKey(context);
    await assert.rejects(kms.decrypt(key, { ...context, walletId: 'wal_B' }), KmsDecryptError);
  });

  test('the service started with KMS_PROVIDER=aws wraps the new app wallet with the endpoint and signs with it', async () => {
    // The service takes credentials from the SDK's default chain: here, the environment (this file's own process).
    process.env.AWS_ACCESS_KEY_ID = 'AKIDSERVICE';
    process.env.AWS_SECRET_ACCESS_KEY = 'service-secret';
    const svc = await startTestService({
      KMS_PROVIDER: 'aws',
      AWS_KMS_KEY_ID: 'alias/onboard',
      AWS_REGION: 'us-east-1',
      AWS_KMS_ENDPOINT: fake.url,
      // Every unwrap to the endpoint (the data-key cache has its own tests: src/infra/kms/dataKeyCache.test.ts).
      KMS_DATA_KEY_CACHE_SECONDS: '0',
    });
    try {
      assert.match(svc.deps.kms.description, /^AWS KMS key alias\/onboard in us-east-1 via http:\/\/127\.0\.0\.1:\d+$/);
      const owner = await signInOperator(svc);
      const created = await owner.call('createApp', 'POST', '/api/v1/apps', {
        body: { name: 'AWS app', network: 'testnet' },
      });
      assert.equal(created.status, 201, created.text);
      const appId = created.body.content.appId;
      const wallet = (await findAppWallet(svc.deps.db, { id: appId, network: 'testnet' }, 'global'))!;
      assert.equal(wallet.kmsKeyId, fake.keyArn);
      const generate = fake.requests.findLast((r) => r.target === 'TrentService.GenerateDataKey')!;
      assert.deepEqual(generate.body.EncryptionContext, { appId, walletId: wallet.id, network: 'testnet' });
      assert.match(generate.authorization ?? '', /Credential=AKIDSERVICE\//);
      const message = Buffer.from('activate');
      const signature = await withWalletKeypair(
        svc.deps,
        { walletId: wallet.id, purpose: 'wallet.activate', actor: { type: 'system', id: null } },
        async (kp) => kp.sign(message),
      );
      assert.ok(Keypair.fromPublicKey(wallet.publicKey).verify(message, signature));
      assert.equal(fake.requests.at(-1)!.target, 'TrentService.Decrypt');
    } finally {
      await svc.stop();
    }
  });
});
