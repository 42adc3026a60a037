// How a delivery is signed, exactly as the contract's `webhooks` section says:
//   X-Service-Signature: sha256=<lowercase hex HMAC-SHA256 of the raw body, keyed with the whole `whsec_...` string>
//     (the interface spec's header; one signature: during a rotation overlap it is made with the previous secret)
//   webhook-id, webhook-timestamp, webhook-signature: Standard Webhooks, `v1,<base64 HMAC-SHA256 of
//     "{id}.{timestamp}.{body}">` keyed with the base64-decoded part after `whsec_`, one per valid secret, space
//     separated; made by the standardwebhooks package, which receivers can verify with as is. With the app's Ed25519
//     key (asymmetricSignature), a `v1a,<base64 Ed25519 signature of the same string>` entry too: the package signs
//     v1 only, so v1a is node:crypto's Ed25519 (a few lines).
import { createHmac, createPrivateKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A new signing secret: `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The first characters of a secret, shown to tell secrets apart (never enough to sign). */
export function secretPrefix(secret: string): string {
  return secret.slice(0, 'whsec_'.length + 6);
}

export interface SigningSecrets {
  /** The current secret. */
  current: string;
  /** The previous secret while its rotation overlap lasts. */
  previous?: string;
  /** The app's Ed25519 private key, when it asked for v1a signatures. */
  ed25519?: KeyObject;
}

/** A new Ed25519 key pair: the private key as PKCS#8 DER (base64, to be sealed) and the public key as `whpk_...`. */
export function newSigningKeyPair(): { privateKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  return {
    privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
    publicKey: `whpk_${raw.toString('base64')}`,
  };
}

/** The private key a newSigningKeyPair() gave, back from its base64 PKCS#8 form. */
export function signingKeyFrom(privateKey: string): KeyObject {
  return createPrivateKey({ key: Buffer.from(privateKey, 'base64'), format: 'der', type: 'pkcs8' });
}

/** The headers of one attempt: `timestamp` is when it is sent. */
export function signatureHeaders(
  secrets: SigningSecrets,
  delivery: { eventId: string; timestamp: Date; body: string },
): Record<string, string> {
  const all = secrets.previous ? [secrets.current, secrets.previous] : [secrets.current];
  const legacyKey = secrets.previous ?? secrets.current;
  const seconds = Math.floor(delivery.timestamp.getTime() / 1000).toString();
  return {
    'content-type': 'application/json',
    'user-agent': 'Onboard-Webhooks/1',
    'x-service-signature': `sha256=${createHmac('sha256', Buffer.from(legacyKey, 'utf8')).update(delivery.body).digest('hex')}`,
    'webhook-id': delivery.eventId,
    'webhook-timestamp': seconds,
    'webhook-signature': [
      ...all.map((secret) => new Webhook(secret).sign(delivery.eventId, delivery.timestamp, delivery.body)),
      ...(secrets.ed25519
        ? [
            `v1a,${sign(null, Buffer.from(`${delivery.eventId}.${seconds}.${delivery.body}`), secrets.ed25519).toString('base64')}`,
          ]
        : []),
    ].join(' '),
  };
}
