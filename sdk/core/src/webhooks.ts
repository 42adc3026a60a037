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

/** The three Standard Webhooks headers, or the failure a delivery without them is. */
function standardHeaders(
  headers: HeaderBag,
): { ok: true; id: string; timestamp: string; signature: string } | Extract<WebhookVerification, { ok: false }> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signature = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signature)
    return {
      ok: false,
      reason: 'missing_headers',
      message: 'webhook-id, webhook-timestamp and webhook-signature are required',
    };
  return { ok: true, id, timestamp, signature };
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
  const standard = standardHeaders(headers);
  if (!standard.ok) return standard;
  const { id, timestamp, signature } = standard;
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
  return eventOf<Data>(rawBody, id);
}

/** The delivery's body as an event whose id is `webhook-id`, or why not. */
function eventOf<Data>(rawBody: string, id: string): WebhookVerification<Data> {
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

/** Standard Webhooks' tolerance: a delivery stamped further than this from the receiver's clock is refused. */
const TOLERANCE_SECONDS = 300;

function fromBase64(value: string): Uint8Array<ArrayBuffer> {
  const binary = atob(value);
  const bytes = new Uint8Array(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * Verifies a delivery's `v1a` (Ed25519) signature with the app's public key (`whpk_...`, from getWebhookConfig), for
 * apps that turned asymmetricSignature on: the receiver then holds no signing secret. Checks the 300 s tolerance
 * like verifyWebhook. Web Crypto (Node 20+, current browsers). Never throws for a bad delivery.
 */
export async function verifyWebhookWithPublicKey<Data = Record<string, unknown>>(
  rawBody: string,
  headers: HeaderBag,
  publicKey: string,
  now: Date = new Date(),
): Promise<WebhookVerification<Data>> {
  const standard = standardHeaders(headers);
  if (!standard.ok) return standard;
  const { id, timestamp, signature } = standard;
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(Number(timestamp) - now.getTime() / 1000) > TOLERANCE_SECONDS)
    return { ok: false, reason: 'invalid_signature', message: 'the timestamp is missing or too far from now' };
  if (!/^whpk_[0-9A-Za-z+/]{43}=$/.test(publicKey))
    return { ok: false, reason: 'invalid_signature', message: 'the public key is not a whpk_ key' };
  const key = await crypto.subtle.importKey(
    'raw',
    fromBase64(publicKey.slice('whpk_'.length)),
    { name: 'Ed25519' },
    false,
    ['verify'],
  );
  const signed = new TextEncoder().encode(`${id}.${timestamp}.${rawBody}`);
  for (const entry of signature.split(' ')) {
    if (!entry.startsWith('v1a,')) continue;
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      bytes = fromBase64(entry.slice('v1a,'.length));
    } catch {
      continue;
    }
    if (await crypto.subtle.verify({ name: 'Ed25519' }, key, bytes, signed)) return eventOf<Data>(rawBody, id);
  }
  return { ok: false, reason: 'invalid_signature', message: 'no v1a signature verifies with this public key' };
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
