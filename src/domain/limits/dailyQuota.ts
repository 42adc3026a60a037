// The testnet key quota (interface spec, Limits: 1,000 requests per key per UTC day), counted durably in PostgreSQL.
// The shared count only grows by atomic statements that never take it past the quota: one request (consumeDailyQuota)
// or a block a process leases to spend in memory (leaseDailyQuota, quotaLeases.ts), so concurrent requests on any
// number of processes can never be admitted past it, and a restart does not reset it.
import type { Knex } from 'knex';

/** The UTC day of an instant, as `YYYY-MM-DD`. */
export function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** Whole seconds from `now` until the next UTC midnight (at least 1). */
export function secondsUntilNextUtcMidnight(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

/**
 * Counts one request of `keyId` on `day`. Returns the count including this request, or undefined when the key had
 * already used its `quota` for that day (nothing is counted then).
 */
export async function consumeDailyQuota(
  db: Knex,
  keyId: string,
  day: string,
  quota: number,
): Promise<number | undefined> {
  const result = await db.raw<{ rows: { count: number }[] }>(
    `insert into api_key_daily_usage (key_id, day, count) values (?, ?, 1)
     on conflict (key_id, day) do update set count = api_key_daily_usage.count + 1
     where api_key_daily_usage.count < ?
     returning count`,
    [keyId, day, quota],
  );
  return result.rows[0]?.count;
}

/**
 * Leases `block` requests of `keyId` on `day` for one process to spend: the count grows by the whole block only if it
 * stays within `quota`. Returns the count including the block, or undefined when the block does not fit (nothing is
 * taken then; the caller leases a smaller one).
 */
export async function leaseDailyQuota(
  db: Knex,
  keyId: string,
  day: string,
  quota: number,
  block: number,
): Promise<number | undefined> {
  if (block > quota) return undefined;
  const result = await db.raw<{ rows: { count: number }[] }>(
    `insert into api_key_daily_usage (key_id, day, count) values (?, ?, ?)
     on conflict (key_id, day) do update set count = api_key_daily_usage.count + ?
     where api_key_daily_usage.count + ? <= ?
     returning count`,
    [keyId, day, block, block, block, quota],
  );
  return result.rows[0]?.count;
}

/**
 * Gives back `unspent` requests a process leased and did not spend (its requests stopped): the count shrinks by them,
 * so that other processes can admit them.
 */
export async function returnDailyQuota(db: Knex, keyId: string, day: string, unspent: number): Promise<void> {
  await db('api_key_daily_usage')
    .where({ key_id: keyId, day })
    .update({ count: db.raw('greatest(0, count - ?)', [unspent]) });
}

/** Sets a key's count for a day (tests and operator tooling). */
export async function setDailyUsage(db: Knex, keyId: string, day: string, count: number): Promise<void> {
  await db.raw(
    `insert into api_key_daily_usage (key_id, day, count) values (?, ?, ?)
     on conflict (key_id, day) do update set count = excluded.count`,
    [keyId, day, count],
  );
}

/** A key's count for a day (0 when it made no request). */
export async function dailyUsage(db: Knex, keyId: string, day: string): Promise<number> {
  const row = await db('api_key_daily_usage').where({ key_id: keyId, day }).first<{ count: number } | undefined>();
  return row?.count ?? 0;
}

/** Deletes the counts of days before `keepFromDay` (`YYYY-MM-DD`): only the current UTC day is ever consulted. */
export async function pruneDailyUsage(db: Knex, keepFromDay: string): Promise<number> {
  return db('api_key_daily_usage').where('day', '<', keepFromDay).delete();
}
