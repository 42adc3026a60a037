// Receiving Onboard webhooks in an app's backend: verify a delivery before trusting it, as the contract's `webhooks`
// section says. The recommended check is Standard Webhooks' `webhook-signature` over "{id}.{timestamp}.{raw body}"
// with the timestamp within 300 s of the receiver's clock (which stops replays), done by the standardwebhooks
// package; during a secret rotation pass both secrets. `X-Service-Signature` (a plain HMAC of the body, no timestamp)
// is checked too when asked, for receivers that only know that header.
import { Webhook } from 'standardwebhooks';

/** A verified delivery's body. */
export interface WebhookEvent<Data = Record<string, unknown>> {
  id: string;
  event: string;
  timestamp: string;
  data: Data;
}

export type WebhookVerification<Data = Record<string, unknown>> =
  | { ok: true; event: WebhookEvent<Data> }
  | { ok: false; reason: 'missing_headers' | 'invalid_signature' | 'invalid_body'; message: string };

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const value =
    bag[name] ?? bag[name.toLowerCase()] ?? Object.entries(bag).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Verifies a delivery: `rawBody` exactly as received (before any JSON parsing), the request's headers, and the
 * app's signing secret (`whsec_...`; during a rotation, the new and the old one). Never throws for a bad delivery.
 */
export function verifyWebhook<Data = Record<string, unknown>>(
  rawBody: string,
  headers: HeaderBag,
  secrets: string | string[],
): WebhookVerification<Data> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signature = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signature)
    return {
      ok: false,
      reason: 'missing_headers',
      message: 'webhook-id, webhook-timestamp and webhook-signature are required',
    };
  let verified = false;
  let lastError = 'no secret given';
  for (const secret of Array.isArray(secrets) ? secrets : [secrets]) {
    try {
      new Webhook(secret).verify(rawBody, {
        'webhook-id': id,
        'webhook-timestamp': timestamp,
        'webhook-signature': signature,
      });
      verified = true;
      break;
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
    }
  }
  if (!verified) return { ok: false, reason: 'invalid_signature', message: lastError };
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    return { ok: false, reason: 'invalid_body', message: 'the body is not JSON' };
  }
  const event = body as Partial<WebhookEvent<Data>>;
  if (
    typeof event.id !== 'string' ||
    event.id !== id ||
    typeof event.event !== 'string' ||
    typeof event.timestamp !== 'string'
  )
    return {
      ok: false,
      reason: 'invalid_body',
      message: 'the body is not an Onboard event, or its id is not webhook-id',
    };
  return { ok: true, event: event as WebhookEvent<Data> };
}

/**
 * Checks `X-Service-Signature: sha256=<hex HMAC-SHA256 of the raw body>` keyed with the whole secret string, in
 * constant time (Web Crypto). On its own it does not stop a replayed delivery: prefer verifyWebhook.
 */
export async function verifyServiceSignature(
  rawBody: string,
  headerValue: string | undefined,
  secret: string,
): Promise<boolean> {
  if (!headerValue?.startsWith('sha256=')) return false;
  const hex = headerValue.slice('sha256='.length);
  if (!/^[0-9a-f]{64}$/.test(hex)) return false;
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'verify',
  ]);
  const given = new Uint8Array(hex.match(/../g)!.map((b) => parseInt(b, 16)));
  return crypto.subtle.verify('HMAC', key, given, encoder.encode(rawBody));
}
