// Storage of operators, apps, members and allowed origins. Every function takes the knex handle (or transaction) to
// use, so callers compose them in one withTx.
import type { Knex } from 'knex';
import { newId } from '../ids';
import type { ApiKeyNetwork } from '../apiKeys/keyFormat';

export type AppStatus = 'active' | 'archived';
export type MemberRole = 'owner' | 'admin' | 'developer';

export interface Operator {
  id: string;
  email: string | null;
  stellarAccount: string | null;
  createdAt: Date;
}

export interface App {
  id: string;
  name: string;
  network: ApiKeyNetwork;
  status: AppStatus;
  ownerOperatorId: string;
  createdAt: Date;
  archivedAt: Date | null;
}

function toOperator(row: any): Operator {
  return { id: row.id, email: row.email, stellarAccount: row.stellar_account, createdAt: row.created_at };
}

function toApp(row: any): App {
  return {
    id: row.id,
    name: row.name,
    network: row.network,
    status: row.status,
    ownerOperatorId: row.owner_operator_id,
    createdAt: row.created_at,
    archivedAt: row.archived_at,
  };
}

/** Creates an operator; emails are stored lower-cased (one operator per address). */
export async function createOperator(db: Knex, input: { email?: string; stellarAccount?: string }): Promise<Operator> {
  const [row] = await db('operators')
    .insert({ id: newId('op'), email: input.email?.trim().toLowerCase() ?? null, stellar_account: input.stellarAccount ?? null })
    .returning('*');
  return toOperator(row);
}

export async function findOperatorByEmail(db: Knex, email: string): Promise<Operator | undefined> {
  const row = await db('operators').where({ email: email.trim().toLowerCase() }).first();
  return row ? toOperator(row) : undefined;
}

/** Creates an app owned by `ownerOperatorId`, with the owner's membership (role owner). Call inside a transaction. */
export async function createApp(db: Knex, input: { name: string; network: ApiKeyNetwork; ownerOperatorId: string }): Promise<App> {
  const [row] = await db('apps')
    .insert({ id: newId('app'), name: input.name, network: input.network, owner_operator_id: input.ownerOperatorId })
    .returning('*');
  await db('app_members').insert({ app_id: row.id, operator_id: input.ownerOperatorId, role: 'owner' });
  return toApp(row);
}

export async function findApp(db: Knex, appId: string): Promise<App | undefined> {
  const row = await db('apps').where({ id: appId }).first();
  return row ? toApp(row) : undefined;
}

export async function archiveApp(db: Knex, appId: string, at: Date = new Date()): Promise<void> {
  await db('apps').where({ id: appId, status: 'active' }).update({ status: 'archived', archived_at: at });
}

export async function restoreApp(db: Knex, appId: string): Promise<void> {
  await db('apps').where({ id: appId }).update({ status: 'active', archived_at: null });
}

/**
 * An origin as browsers send it: `scheme://host[:port]`, lower case, default port dropped. Undefined for anything
 * else (paths, `null`, non-http schemes), so a stored origin and a presented Origin header compare as strings.
 */
export function normalizeOrigin(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username || url.password || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) return undefined;
  return url.origin;
}

/** Adds allowed origins to an app (duplicates ignored); throws on a value that is not an origin. */
export async function addAppOrigins(db: Knex, appId: string, origins: string[]): Promise<void> {
  const rows = origins.map((o) => {
    const origin = normalizeOrigin(o);
    if (!origin) throw new Error(`not an origin: ${o}`);
    return { app_id: appId, origin };
  });
  if (rows.length) await db('app_origins').insert(rows).onConflict(['app_id', 'origin']).ignore();
}

export async function listAppOrigins(db: Knex, appId: string): Promise<string[]> {
  return (await db('app_origins').where({ app_id: appId }).orderBy('origin').pluck('origin')) as string[];
}
