// A KMS-protocol endpoint for tests: a node:http server speaking AWS JSON 1.1 (`x-amz-target: TrentService.<Op>`)
// for GenerateDataKey and Decrypt, so the real @aws-sdk/client-kms makes a real, signed HTTP exchange. Like KMS, it
// binds the encryption context to the ciphertext (AES-256-GCM under its own master key, the context as AAD) and
// answers InvalidCiphertextException when a Decrypt names another context.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface KmsRequest {
  target: string;
  contentType: string | undefined;
  authorization: string | undefined;
  body: Record<string, any>;
}

export interface FakeKms {
  url: string;
  keyArn: string;
  requests: KmsRequest[];
  stop(): Promise<void>;
}

function aad(context: Record<string, string> | undefined): Buffer {
  return Buffer.from(JSON.stringify(Object.entries(context ?? {}).sort(([a], [b]) => a.localeCompare(b))));
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) body += chunk;
  return body;
}

export async function startFakeKms(): Promise<FakeKms> {
  const master = randomBytes(32);
  const keyArn = 'arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
  const requests: KmsRequest[] = [];
  const server = createServer((req, res) => void handle(req, res));
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = JSON.parse((await readBody(req)) || '{}');
    const target = String(req.headers['x-amz-target'] ?? '');
    requests.push({ target, contentType: req.headers['content-type'], authorization: req.headers.authorization, body });
    const answer = (status: number, json: unknown) => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(json));
    };
    if (target === 'TrentService.GenerateDataKey') {
      const plaintext = randomBytes(32);
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', master, iv).setAAD(aad(body.EncryptionContext));
      const sealed = Buffer.concat([iv, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
      answer(200, {
        KeyId: keyArn,
        Plaintext: plaintext.toString('base64'),
        CiphertextBlob: sealed.toString('base64'),
      });
    } else if (target === 'TrentService.Decrypt') {
      const sealed = Buffer.from(body.CiphertextBlob ?? '', 'base64');
      try {
        const decipher = createDecipheriv('aes-256-gcm', master, sealed.subarray(0, 12)).setAAD(
          aad(body.EncryptionContext),
        );
        decipher.setAuthTag(sealed.subarray(sealed.length - 16));
        const plaintext = Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]);
        answer(200, {
          KeyId: keyArn,
          Plaintext: plaintext.toString('base64'),
          EncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
        });
      } catch {
        answer(400, {
          __type: 'InvalidCiphertextException',
          message: 'The ciphertext or the encryption context is not valid',
        });
      }
    } else {
      answer(400, { __type: 'UnsupportedOperationException', message: `${target} is not supported by the test KMS` });
    }
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    keyArn,
    requests,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
