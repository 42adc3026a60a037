// API keys: minting, hashing and storage. A key is shown once, at creation; the database keeps only its SHA-256 hash
// (for lookup) and a short display prefix (for the Dashboard), so a database leak exposes no usable key.
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { newId, randomBase62 } from '../ids';
import { parseApiKey, type ApiKeyNetwork, type ApiKeyType } from './keyFormat';

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
  return createHash('sha256').update(key, 'utf8').digest('hex');
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
    })
    .returning('*')) as ApiKeyRow[];
  return { ...toRecord(row!), key };
}

/** The key stored for a presented key (revoked and expired ones included: the caller decides), or undefined. */
export async function findApiKey(db: Knex, presentedKey: string): Promise<ApiKeyRecord | undefined> {
  const row = (await db('api_keys').where({ key_hash: hashApiKey(presentedKey) }).first()) as ApiKeyRow | undefined;
  return row ? toRecord(row) : undefined;
}

/** Revokes a key (idempotent: the first revocation time is kept). */
export async function revokeApiKey(db: Knex, keyId: string, at: Date = new Date()): Promise<void> {
  await db('api_keys').where({ id: keyId }).whereNull('revoked_at').update({ revoked_at: at });
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

export async function findKeyForGate(db: Knex, presentedKey: string): Promise<KeyForGate | undefined> {
  const row = (await db('api_keys as k')
    .leftJoin('apps as a', 'a.id', 'k.app_id')
    .where('k.key_hash', hashApiKey(presentedKey))
    .select('k.*', 'a.id as app_row_id', 'a.status as app_status')
    .select(db.raw('array(select o.origin from app_origins o where o.app_id = k.app_id) as origins'))
    .first()) as (ApiKeyRow & { app_row_id: string | null; app_status: 'active' | 'archived' | null; origins: string[] }) | undefined;
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
