// An app's webhook endpoint (Build, Webhooks): URL, enabled flag, subscribed events and the signing secret, which is
// shown once (when first created, and on each rotation) and kept sealed (domain/secrets/sealed.ts), since deliveries
// must be signed with it. A rotation keeps the previous secret signing beside the new one for an overlap period.
import type { Knex } from 'knex';
import type { WebhookSettings } from '../../config';
import { resolveDestination } from '../../infra/egress/post';
import { recordAudit, type AuditActor } from '../audit/auditLog';
import { AppError } from '../errors';
import { seal, unseal, type Sealer } from '../secrets/sealed';
import { newSigningKeyPair, newWebhookSecret, secretPrefix, signingKeyFrom, type SigningSecrets } from './signing';

/** The contract's WebhookEventName. */
export const WEBHOOK_EVENTS = [
  'stellar.tx',
  'wallet.created',
  'wallet.activated',
  'wallet.funded',
  'payment.sent',
  'payment.received',
  'trustline.added',
  'sponsor.balance.low',
  'ramp.updated',
] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];

/** How far a receiver should let `webhook-timestamp` be from its clock (Standard Webhooks' 5 minutes). */
export const TOLERANCE_SECONDS = 300;

const SEAL_PURPOSE = 'webhook-secret';
const SIGNING_KEY_PURPOSE = 'webhook-signing-key';

interface EndpointRow {
  app_id: string;
  url: string | null;
  enabled: boolean;
  events: string[];
  secret_sealed: Buffer | null;
  secret_prefix: string | null;
  previous_secret_sealed: Buffer | null;
  previous_secret_expires_at: Date | null;
  disabled_reason: string | null;
  asymmetric: boolean;
  signing_key_sealed: Buffer | null;
  public_key: string | null;
  updated_at: Date;
}

export interface WebhookConfigView {
  url: string | null;
  enabled: boolean;
  events: WebhookEventName[];
  secretSet: boolean;
  secretPrefix: string | null;
  disabledReason: 'gone' | null;
  asymmetricSignature: boolean;
  publicKey: string | null;
  secret?: string;
  signing: {
    algorithm: 'HMAC-SHA256';
    headers: { name: string; value: string }[];
    toleranceSeconds: number;
  };
}

/** How deliveries are signed, for receivers (the same for every app). */
const SIGNING: WebhookConfigView['signing'] = {
  algorithm: 'HMAC-SHA256',
  headers: [
    {
      name: 'X-Service-Signature',
      value: 'sha256= + lowercase hex HMAC-SHA256 of the raw body, keyed with the whole secret string (UTF-8)',
    },
    { name: 'webhook-id', value: 'The event id (evt_...), the same on every attempt; use it to drop duplicates' },
    {
      name: 'webhook-timestamp',
      value: 'Unix seconds when the attempt was sent; reject deliveries more than toleranceSeconds away',
    },
    {
      name: 'webhook-signature',
      value:
        'v1, + base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{raw body}", keyed with the base64-decoded part of the secret after whsec_; space-separated list during a rotation',
    },
  ],
  toleranceSeconds: TOLERANCE_SECONDS,
};

function view(row: EndpointRow | undefined): WebhookConfigView {
  return {
    url: row?.url ?? null,
    // An endpoint the service disabled (410 Gone) reads as disabled until it is enabled again.
    enabled: Boolean(row?.enabled && row.url),
    events: (row?.events ?? []).filter((e): e is WebhookEventName => (WEBHOOK_EVENTS as readonly string[]).includes(e)),
    secretSet: Boolean(row?.secret_sealed),
    secretPrefix: row?.secret_prefix ?? null,
    disabledReason: row?.disabled_reason === 'gone' ? 'gone' : null,
    asymmetricSignature: Boolean(row?.asymmetric && row.public_key),
    publicKey: row?.asymmetric ? (row.public_key ?? null) : null,
    signing: SIGNING,
  };
}

async function endpointRow(db: Knex, appId: string, forUpdate = false): Promise<EndpointRow | undefined> {
  const query = db<EndpointRow>('webhook_endpoints').where({ app_id: appId });
  if (forUpdate) query.forUpdate();
  return query.first();
}

export async function getWebhookConfig(db: Knex, appId: string): Promise<WebhookConfigView> {
  return view(await endpointRow(db, appId));
}

export interface WebhookDeps {
  db: Knex;
  secrets: Sealer;
  webhooks?: WebhookSettings;
}

/**
 * Replaces the endpoint settings. The URL is checked (https, a public address) before anything is stored; the first
 * URL creates the app's secret, returned once in `secret`. Audited as `webhook.updated`.
 */
export async function updateWebhookConfig(
  deps: WebhookDeps,
  input: {
    appId: string;
    url: string | null;
    enabled: boolean;
    events: WebhookEventName[];
    /** Also sign with the app's Ed25519 key (v1a); its key pair is created the first time. */
    asymmetricSignature?: boolean;
    actor: AuditActor;
    at: Date;
    ip?: string;
  },
): Promise<WebhookConfigView> {
  if (input.enabled && input.url === null)
    throw new AppError('VALIDATION_ERROR', {
      message: 'Request validation failed',
      details: { fieldErrors: { url: ['is required when enabled is true'] } },
    });
  if (input.url !== null) {
    const destination = await resolveDestination(input.url, {
      allowInsecure: deps.webhooks?.allowInsecure ?? false,
    });
    if ('refused' in destination)
      throw new AppError('WEBHOOK_URL_NOT_ALLOWED', { message: `The webhook URL ${destination.refused}` });
  }
  return deps.db.transaction(async (trx) => {
    const row = await endpointRow(trx, input.appId, true);
    let secret: string | undefined;
    const changes: Partial<EndpointRow> = {
      url: input.url,
      enabled: input.enabled,
      events: [...new Set(input.events)],
      disabled_reason: null,
      updated_at: input.at,
    };
    changes.asymmetric = input.asymmetricSignature ?? false;
    if (changes.asymmetric && !row?.signing_key_sealed) {
      const pair = newSigningKeyPair();
      changes.signing_key_sealed = seal(deps.secrets, SIGNING_KEY_PURPOSE, [input.appId], pair.privateKey);
      changes.public_key = pair.publicKey;
    }
    if (input.url !== null && !row?.secret_sealed) {
      secret = newWebhookSecret();
      changes.secret_sealed = seal(deps.secrets, SEAL_PURPOSE, [input.appId], secret);
      changes.secret_prefix = secretPrefix(secret);
    }
    await trx('webhook_endpoints')
      .insert({ app_id: input.appId, ...changes })
      .onConflict('app_id')
      .merge(Object.keys(changes));
    await recordAudit(trx, {
      appId: input.appId,
      action: 'webhook.updated',
      actor: input.actor,
      purpose: `url ${input.url === null ? 'removed' : 'set'}, ${input.enabled ? 'enabled' : 'disabled'}`,
      ...(input.ip !== undefined ? { ip: input.ip } : {}),
      at: input.at,
    });
    const stored = view(await endpointRow(trx, input.appId));
    return secret ? { ...stored, secret } : stored;
  });
}

/**
 * A new secret, returned once; the previous one keeps signing for `overlapSeconds` (0: it stops at once). 409
 * WEBHOOK_NOT_CONFIGURED without a URL. Audited as `webhook.secret_rotated`.
 */
export async function rotateWebhookSecret(
  deps: Pick<WebhookDeps, 'db' | 'secrets'>,
  input: { appId: string; overlapSeconds: number; actor: AuditActor; at: Date; ip?: string },
): Promise<{ secret: string; previousSecretExpiresAt: Date | null }> {
  return deps.db.transaction(async (trx) => {
    const row = await endpointRow(trx, input.appId, true);
    if (!row?.url) throw new AppError('WEBHOOK_NOT_CONFIGURED', { message: 'The app has no webhook URL configured' });
    const secret = newWebhookSecret();
    const previousExpires =
      row.secret_sealed && input.overlapSeconds > 0 ? new Date(input.at.getTime() + input.overlapSeconds * 1000) : null;
    await trx('webhook_endpoints')
      .where({ app_id: input.appId })
      .update({
        secret_sealed: seal(deps.secrets, SEAL_PURPOSE, [input.appId], secret),
        secret_prefix: secretPrefix(secret),
        previous_secret_sealed: previousExpires ? row.secret_sealed : null,
        previous_secret_expires_at: previousExpires,
        updated_at: input.at,
      });
    await recordAudit(trx, {
      appId: input.appId,
      action: 'webhook.secret_rotated',
      actor: input.actor,
      purpose: `overlap ${input.overlapSeconds} s`,
      ...(input.ip !== undefined ? { ip: input.ip } : {}),
      at: input.at,
    });
    return { secret, previousSecretExpiresAt: previousExpires };
  });
}

/** Where and how an app's deliveries go now: undefined when it has no enabled endpoint. */
export interface DeliveryTarget {
  url: string;
  events: WebhookEventName[];
  secrets: SigningSecrets;
}

export async function deliveryTarget(
  deps: Pick<WebhookDeps, 'db' | 'secrets'>,
  appId: string,
  now: Date,
): Promise<DeliveryTarget | undefined> {
  const row = await endpointRow(deps.db, appId);
  if (!row?.url || !row.enabled || !row.secret_sealed) return undefined;
  const previous =
    row.previous_secret_sealed && row.previous_secret_expires_at && row.previous_secret_expires_at > now
      ? unseal(deps.secrets, SEAL_PURPOSE, [appId], row.previous_secret_sealed)
      : undefined;
  return {
    url: row.url,
    events: view(row).events,
    secrets: {
      current: unseal(deps.secrets, SEAL_PURPOSE, [appId], row.secret_sealed),
      ...(previous ? { previous } : {}),
      ...(row.asymmetric && row.signing_key_sealed
        ? { ed25519: signingKeyFrom(unseal(deps.secrets, SIGNING_KEY_PURPOSE, [appId], row.signing_key_sealed)) }
        : {}),
    },
  };
}

/** Whether the app's enabled endpoint wants events of this type (read inside the event's own transaction). */
export async function wantsEvent(db: Knex, appId: string, type: WebhookEventName): Promise<boolean> {
  const row = await db<EndpointRow>('webhook_endpoints')
    .where({ app_id: appId, enabled: true })
    .whereNotNull('url')
    .whereRaw('? = any(events)', [type])
    .first('app_id');
  return Boolean(row);
}

/** After a 410 Gone: the endpoint is disabled until an operator enables it again. */
export async function disableGoneEndpoint(db: Knex, appId: string, at: Date): Promise<void> {
  await db('webhook_endpoints')
    .where({ app_id: appId })
    .update({ enabled: false, disabled_reason: 'gone', updated_at: at });
}
