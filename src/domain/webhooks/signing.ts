// How a delivery is signed, exactly as the contract's `webhooks` section says:
//   X-Service-Signature: sha256=<lowercase hex HMAC-SHA256 of the raw body, keyed with the whole `whsec_...` string>
//     (the interface spec's header; one signature: during a rotation overlap it is made with the previous secret)
//   webhook-id, webhook-timestamp, webhook-signature: Standard Webhooks, `v1,<base64 HMAC-SHA256 of
//     "{id}.{timestamp}.{body}">` keyed with the base64-decoded part after `whsec_`, one per valid secret, space
//     separated; made by the standardwebhooks package, which receivers can verify with as is.
import { createHmac, randomBytes } from 'node:crypto';
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
}

/** The headers of one attempt: `timestamp` is when it is sent. */
export function signatureHeaders(
  secrets: SigningSecrets,
  delivery: { eventId: string; timestamp: Date; body: string },
): Record<string, string> {
  const all = secrets.previous ? [secrets.current, secrets.previous] : [secrets.current];
  const legacyKey = secrets.previous ?? secrets.current;
  return {
    'content-type': 'application/json',
    'user-agent': 'Onboard-Webhooks/1',
    'x-service-signature': `sha256=${createHmac('sha256', Buffer.from(legacyKey, 'utf8')).update(delivery.body).digest('hex')}`,
    'webhook-id': delivery.eventId,
    'webhook-timestamp': Math.floor(delivery.timestamp.getTime() / 1000).toString(),
    'webhook-signature': all
      .map((secret) => new Webhook(secret).sign(delivery.eventId, delivery.timestamp, delivery.body))
      .join(' '),
  };
}
