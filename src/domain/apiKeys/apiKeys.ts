// API keys: minting, hashing and storage. A key is shown once, at creation; the database keeps only its SHA-256 hash
// (for lookup) and a short display prefix (for the Dashboard), so a database leak exposes no usable key.
import { hash } from 'node:crypto';
import type { Knex } from 'knex';
import { AppError } from '../errors';
import { newId, randomBase62 } from '../ids';
import { parseApiKey, type ApiKeyNetwork, type ApiKeyType } from './keyFormat';
import { rotationEnd } from './lifecycle';

/** Base62 characters of a key's random part: 40 x log2(62) ~ 238 bits. */
export const KEY_RANDOM_LENGTH = 40;
/** Random characters kept in the display prefix (`sec_testnet_AbCd`): enough to tell keys apart, useless to guess. */
const DISPLAY_RANDOM_CHARS = 4;

export interface ApiKeyRecord {
  id: string;
  appId: string;
  type: ApiKeyType;
  network: ApiKeyNetwork;
  displayPrefix: string;
  label: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  /** When a rotation replaced the key, and by which key (both null if it never was). */
  rotatedAt: Date | null;
  replacedByKeyId: string | null;
}

/** A freshly created key: the record plus the key in clear, which is never stored and must be shown only once. */
export interface CreatedApiKey extends ApiKeyRecord {
  key: string;
}

interface ApiKeyRow {
  id: string;
  app_id: string;
  type: ApiKeyType;
  network: ApiKeyNetwork;
  display_prefix: string;
  label: string | null;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  rotated_at: Date | null;
  replaced_by_key_id: string | null;
}

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    appId: row.app_id,
    type: row.type,
    network: row.network,
    displayPrefix: row.display_prefix,
    label: row.label,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    rotatedAt: row.rotated_at,
    replacedByKeyId: row.replaced_by_key_id,
  };
}

/** A new key in the spec's form: `<pub|sec>_<network>_` + 40 base62 characters from crypto.randomBytes. */
export function generateApiKey(type: ApiKeyType, network: ApiKeyNetwork): string {
  return `${type === 'secret' ? 'sec' : 'pub'}_${network}_${randomBase62(KEY_RANDOM_LENGTH)}`;
}

/**
 * The stored form of a key: hex SHA-256 of the whole key. A fast, unsalted hash is right here (unlike passwords):
 * keys carry ~238 random bits, so no dictionary or brute force applies, and a deterministic hash lets the gate find a
 * key with one indexed lookup per request instead of a slow KDF per candidate.
 */
export function hashApiKey(key: string): string {
  // The one-shot form: no Hash object per request (the gate hashes every presented key).
  return hash('sha256', key, 'hex');
}

/** What the Dashboard shows of a key: its type and network prefix and the first random characters. */
export function displayPrefixOf(key: string): string {
  const parsed = parseApiKey(key);
  if (!parsed) throw new Error('not an API key');
  const prefix = `${type3(parsed.type)}_${parsed.network}_`;
  return prefix + key.slice(prefix.length, prefix.length + DISPLAY_RANDOM_CHARS);
}

function type3(type: ApiKeyType): 'pub' | 'sec' {
  return type === 'secret' ? 'sec' : 'pub';
}

export interface CreateApiKeyInput {
  appId: string;
  type: ApiKeyType;
  network: ApiKeyNetwork;
  label?: string;
  expiresAt?: Date;
  /** Defaults to the database's clock; callers with a Clock pass its time. */
  createdAt?: Date;
}

/** Mints and stores a key for an app; the returned `key` is the only time it exists in clear. */
export async function createApiKey(db: Knex, input: CreateApiKeyInput): Promise<CreatedApiKey> {
  const key = generateApiKey(input.type, input.network);
  const [row] = (await db('api_keys')
    .insert({
      id: newId('key'),
      app_id: input.appId,
      type: input.type,
      network: input.network,
      display_prefix: displayPrefixOf(key),
      key_hash: hashApiKey(key),
      label: input.label ?? null,
      expires_at: input.expiresAt ?? null,
      ...(input.createdAt ? { created_at: input.createdAt } : {}),
    })
    .returning('*')) as ApiKeyRow[];
  return { ...toRecord(row!), key };
}

/** The key stored for a presented key (revoked and expired ones included: the caller decides), or undefined. */
export async function findApiKey(db: Knex, presentedKey: string): Promise<ApiKeyRecord | undefined> {
  const row = (await db('api_keys')
    .where({ key_hash: hashApiKey(presentedKey) })
    .first()) as ApiKeyRow | undefined;
  return row ? toRecord(row) : undefined;
}

/** An app's keys, newest first, at most `limit`. */
export async function listApiKeys(db: Knex, appId: string, limit: number): Promise<ApiKeyRecord[]> {
  const rows = (await db('api_keys')
    .where({ app_id: appId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit)) as ApiKeyRow[];
  return rows.map(toRecord);
}

/** Revokes a key (idempotent: the first revocation time is kept). */
export async function revokeApiKey(db: Knex, keyId: string, at: Date = new Date()): Promise<void> {
  await revokeMatching(db, { id: keyId }, at);
}

/**
 * Revokes a key of an app and returns it, or undefined when the app has no key with this id (a key id of another app
 * is never touched). Idempotent: revoking a revoked key keeps its first revocation time.
 */
export async function revokeAppApiKey(
  db: Knex,
  appId: string,
  keyId: string,
  at: Date,
): Promise<ApiKeyRecord | undefined> {
  const row = await revokeMatching(db, { id: keyId, app_id: appId }, at);
  return row ? toRecord(row) : undefined;
}

async function revokeMatching(
  db: Knex,
  match: { id: string; app_id?: string },
  at: Date,
): Promise<ApiKeyRow | undefined> {
  const [revoked] = (await db('api_keys')
    .where(match)
    .whereNull('revoked_at')
    .update({ revoked_at: at })
    .returning('*')) as ApiKeyRow[];
  return revoked ?? ((await db('api_keys').where(match).first()) as ApiKeyRow | undefined);
}

export interface RotateApiKeyInput {
  appId: string;
  keyId: string;
  /** How long the old key keeps working; 0 ends it at `now`. */
  overlapSeconds: number;
  now: Date;
}

export interface RotatedApiKey {
  /** The successor: same type, network and label, no expiry; its `key` is the only time it exists in clear. */
  key: CreatedApiKey;
  /** The old key with its rotation recorded. */
  previous: ApiKeyRecord;
  /** When the old key stops working (its new expiresAt). */
  previousEndsAt: Date;
}

/**
 * Replaces a key of an app by a new one and ends the old one after the overlap (never later than an expiry it
 * already had). Runs in the caller's transaction with the old key's row locked (FOR UPDATE) until it commits, so of
 * two concurrent rotations of one key the second waits, then sees the first's result and answers
 * API_KEY_ALREADY_ROTATED: a key never gets two successors. Throws API_KEY_ID_NOT_FOUND (no such key in the app),
 * API_KEY_ALREADY_REVOKED or API_KEY_ALREADY_ROTATED.
 */
export async function rotateApiKey(trx: Knex.Transaction, input: RotateApiKeyInput): Promise<RotatedApiKey> {
  const old = (await trx('api_keys').where({ id: input.keyId, app_id: input.appId }).forUpdate().first()) as
    ApiKeyRow | undefined;
  if (!old) throw new AppError('API_KEY_ID_NOT_FOUND', { message: 'No API key with this id in the app' });
  if (old.revoked_at)
    throw new AppError('API_KEY_ALREADY_REVOKED', {
      message: 'The key was revoked and cannot be rotated; generate a new key',
    });
  if (old.replaced_by_key_id) {
    throw new AppError('API_KEY_ALREADY_ROTATED', {
      message:
        'The key was already replaced by a rotation; rotate its replacement, or revoke this key to end its overlap now',
      details: { replacedByKeyId: old.replaced_by_key_id },
    });
  }
  const key = await createApiKey(trx, {
    appId: old.app_id,
    type: old.type,
    network: old.network,
    ...(old.label !== null ? { label: old.label } : {}),
    createdAt: input.now,
  });
  const previousEndsAt = rotationEnd(input.now, input.overlapSeconds, old.expires_at);
  const [updated] = (await trx('api_keys')
    .where({ id: old.id })
    .update({ expires_at: previousEndsAt, rotated_at: input.now, replaced_by_key_id: key.id })
    .returning('*')) as ApiKeyRow[];
  return { key, previous: toRecord(updated!), previousEndsAt };
}

/** Sets or clears a key's expiry. */
export async function setApiKeyExpiry(db: Knex, keyId: string, expiresAt: Date | null): Promise<void> {
  await db('api_keys').where({ id: keyId }).update({ expires_at: expiresAt });
}

/** What the gate needs about a presented key, in one query: the key, its app's state and allowed origins. */
export interface KeyForGate {
  key: ApiKeyRecord;
  /** undefined when the key's app no longer exists. */
  app?: { id: string; status: 'active' | 'archived' };
  origins: string[];
}

/** The key stored under `keyHash` (hashApiKey of the presented key) with its app and origins, in one query. */
export async function findKeyForGateByHash(db: Knex, keyHash: string): Promise<KeyForGate | undefined> {
  const row = (await db('api_keys as k')
    .leftJoin('apps as a', 'a.id', 'k.app_id')
    .where('k.key_hash', keyHash)
    .select('k.*', 'a.id as app_row_id', 'a.status as app_status')
    .select(db.raw('array(select o.origin from app_origins o where o.app_id = k.app_id) as origins'))
    .first()) as
    | (ApiKeyRow & { app_row_id: string | null; app_status: 'active' | 'archived' | null; origins: string[] })
    | undefined;
  if (!row) return undefined;
  return {
    key: toRecord(row),
    ...(row.app_row_id && row.app_status ? { app: { id: row.app_row_id, status: row.app_status } } : {}),
    origins: row.origins ?? [],
  };
}

/** Records that a key was used (the gate calls it at most once a minute per key, without waiting). */
export async function touchApiKey(db: Knex, keyId: string, at: Date): Promise<void> {
  await db('api_keys').where({ id: keyId }).update({ last_used_at: at });
}
