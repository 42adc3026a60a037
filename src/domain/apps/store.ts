// Storage of operators, apps (with their settings) and allowed origins; members are in members.ts, the Domains
// settings (origins and redirect URIs together) in domains.ts. Every function takes the knex handle (or transaction)
// to use, so callers compose them in one withTx.
import type { Knex } from 'knex';
import { onlyRow } from '../../infra/db/database';
import { newId } from '../ids';
import type { ApiKeyNetwork } from '../apiKeys/keyFormat';

export type AppStatus = 'active' | 'archived';
export type MemberRole = 'owner' | 'admin' | 'developer';
export type FundingMode = 'immediate' | 'deferred';

export interface Operator {
  id: string;
  email: string | null;
  stellarAccount: string | null;
  /** From the Google or GitHub profile; null for operators who only used an email code or a wallet. */
  displayName: string | null;
  createdAt: Date;
}

/** What an app's operators change in its settings; a change applies to wallets and tokens created after it. */
export interface AppSettings {
  name: string;
  fundingMode: FundingMode;
  /** XLM paid to each wallet at activation: a decimal string in canonical form ("0", "2.5"), never a float. */
  startingBalanceXlm: string;
  /** Issued assets as `CODE:ISSUER`, in the operator's order. */
  assets: string[];
  accessTokenTtlMinutes: number;
  refreshTokenTtlDays: number;
}

export interface App extends AppSettings {
  id: string;
  network: ApiKeyNetwork;
  status: AppStatus;
  ownerOperatorId: string;
  createdAt: Date;
  archivedAt: Date | null;
}

/** An app with the role a given operator holds in it. */
export interface AppMembership {
  app: App;
  role: MemberRole;
}

/** An `operators` row (migrations 0002, 0011). */
interface OperatorRow {
  id: string;
  email: string | null;
  stellar_account: string | null;
  display_name: string | null;
  created_at: Date;
}

/** An `apps` row (migrations 0002, 0006): numeric as text, text[] as an array, the enums held by check constraints. */
interface AppRow {
  id: string;
  name: string;
  network: ApiKeyNetwork;
  status: App['status'];
  owner_operator_id: string;
  funding_mode: App['fundingMode'];
  starting_balance_xlm: string;
  assets: string[];
  access_token_ttl_minutes: number;
  refresh_token_ttl_days: number;
  created_at: Date;
  archived_at: Date | null;
}

function toOperator(row: OperatorRow): Operator {
  return {
    id: row.id,
    email: row.email,
    stellarAccount: row.stellar_account,
    displayName: row.display_name,
    createdAt: row.created_at,
  };
}

/** A PostgreSQL numeric as text ("2.5000000") in the API's canonical form ("2.5"): exact, no float on the way. */
export function canonicalDecimal(value: string): string {
  return value.includes('.') ? value.replace(/0+$/, '').replace(/\.$/, '') : value;
}

function toApp(row: AppRow): App {
  return {
    id: row.id,
    name: row.name,
    network: row.network,
    status: row.status,
    ownerOperatorId: row.owner_operator_id,
    fundingMode: row.funding_mode,
    startingBalanceXlm: canonicalDecimal(row.starting_balance_xlm),
    assets: row.assets,
    accessTokenTtlMinutes: row.access_token_ttl_minutes,
    refreshTokenTtlDays: row.refresh_token_ttl_days,
    createdAt: row.created_at,
    archivedAt: row.archived_at,
  };
}

const SETTING_COLUMNS: Record<keyof AppSettings, string> = {
  name: 'name',
  fundingMode: 'funding_mode',
  startingBalanceXlm: 'starting_balance_xlm',
  assets: 'assets',
  accessTokenTtlMinutes: 'access_token_ttl_minutes',
  refreshTokenTtlDays: 'refresh_token_ttl_days',
};

/** Creates an operator; emails are stored lower-cased (one operator per address). */
export async function createOperator(db: Knex, input: { email?: string; stellarAccount?: string }): Promise<Operator> {
  const rows = await db<OperatorRow>('operators')
    .insert({
      id: newId('op'),
      email: input.email?.trim().toLowerCase() ?? null,
      stellar_account: input.stellarAccount ?? null,
    })
    .returning('*');
  return toOperator(onlyRow(rows, 'insert into operators'));
}

/** The operator with this email, created when the address never signed in; safe when called concurrently. */
export async function findOrCreateOperatorByEmail(db: Knex, email: string): Promise<Operator> {
  const normalized = email.trim().toLowerCase();
  // ON CONFLICT DO NOTHING waits for a concurrent insert of the same address, after which the lookup sees it.
  const [row] = await db<OperatorRow>('operators')
    .insert({ id: newId('op'), email: normalized })
    .onConflict('email')
    .ignore()
    .returning('*');
  return row ? toOperator(row) : (await findOperatorByEmail(db, normalized))!;
}

/** Records the name of the operator's Google or GitHub profile. */
export async function setOperatorDisplayName(db: Knex, operatorId: string, displayName: string): Promise<Operator> {
  const rows = await db<OperatorRow>('operators')
    .where({ id: operatorId })
    .update({ display_name: displayName })
    .returning('*');
  return toOperator(onlyRow(rows, 'update operators'));
}

export async function findOperator(db: Knex, operatorId: string): Promise<Operator | undefined> {
  const row = await db<OperatorRow>('operators').where({ id: operatorId }).first();
  return row ? toOperator(row) : undefined;
}

export async function findOperatorByEmail(db: Knex, email: string): Promise<Operator | undefined> {
  const row = await db<OperatorRow>('operators').where({ email: email.trim().toLowerCase() }).first();
  return row ? toOperator(row) : undefined;
}

/**
 * Creates an app owned by `ownerOperatorId` with the default settings (the migration's column defaults: immediate
 * funding, starting balance 0, no assets, 15-minute access and 30-day refresh tokens) and the owner's membership,
 * invited and joined at creation. `id` is minted when not given (the app wallet's key is sealed for the app's id
 * before the transaction: wallets/appWallets.ts); `at` defaults to the database's clock. Call inside a transaction.
 */
export async function createApp(
  db: Knex,
  input: { id?: string; name: string; network: ApiKeyNetwork; ownerOperatorId: string; at?: Date },
): Promise<App> {
  const inserted = await db<AppRow>('apps')
    .insert({
      id: input.id ?? newId('app'),
      name: input.name,
      network: input.network,
      owner_operator_id: input.ownerOperatorId,
      created_at: input.at ?? db.fn.now(),
    })
    .returning('*');
  const row = onlyRow(inserted, 'insert into apps');
  await db('app_members').insert({
    id: newId('mem'),
    app_id: row.id,
    operator_id: input.ownerOperatorId,
    role: 'owner',
    invited_at: row.created_at,
    joined_at: row.created_at,
  });
  return toApp(row);
}

export async function findApp(db: Knex, appId: string): Promise<App | undefined> {
  const row = await db<AppRow>('apps').where({ id: appId }).first();
  return row ? toApp(row) : undefined;
}

/** At most this many apps are listed per operator (the contract's bound on listApps). */
const MAX_LISTED_APPS = 500;

/** The apps an operator is a member of, newest first, with the operator's role in each. */
export async function listOperatorApps(
  db: Knex,
  operatorId: string,
  opts: { includeArchived: boolean },
): Promise<AppMembership[]> {
  const query = db('apps as a')
    .join('app_members as m', 'm.app_id', 'a.id')
    .where('m.operator_id', operatorId)
    .select<(AppRow & { member_role: MemberRole })[]>('a.*', 'm.role as member_role')
    .orderBy([
      { column: 'a.created_at', order: 'desc' },
      { column: 'a.id', order: 'desc' },
    ])
    .limit(MAX_LISTED_APPS);
  if (!opts.includeArchived) query.where('a.status', 'active');
  return (await query).map((row) => ({ app: toApp(row), role: row.member_role }));
}

/** Changes the given settings of an active app; undefined when the app is missing or archived. */
export async function updateAppSettings(
  db: Knex,
  appId: string,
  changes: Partial<AppSettings>,
): Promise<App | undefined> {
  const update: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(changes)) {
    if (value !== undefined) update[SETTING_COLUMNS[key as keyof AppSettings]] = value;
  }
  const active = db<AppRow>('apps').where({ id: appId, status: 'active' });
  const [row] = Object.keys(update).length ? await active.update(update).returning('*') : await active.select('*');
  return row ? toApp(row) : undefined;
}

/** Archives an app (an archived one keeps its first archive time); returns it, or undefined when missing. */
export async function archiveApp(db: Knex, appId: string, at: Date = new Date()): Promise<App | undefined> {
  await db<AppRow>('apps').where({ id: appId, status: 'active' }).update({ status: 'archived', archived_at: at });
  return findApp(db, appId);
}

/** Restores an archived app (an active one is unchanged); returns it, or undefined when missing. */
export async function restoreApp(db: Knex, appId: string): Promise<App | undefined> {
  await db<AppRow>('apps').where({ id: appId }).update({ status: 'active', archived_at: null });
  return findApp(db, appId);
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
  if (url.username || url.password || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash)
    return undefined;
  return url.origin;
}

/** Adds allowed origins at the end of an app's list (duplicates ignored); throws on a value that is not an origin. */
export async function addAppOrigins(db: Knex, appId: string, origins: string[]): Promise<void> {
  const last = await db('app_origins').where({ app_id: appId }).max<{ max: number | null }>('position as max').first();
  const start = (last?.max ?? -1) + 1;
  const rows = origins.map((o, i) => {
    const origin = normalizeOrigin(o);
    if (!origin) throw new Error(`not an origin: ${o}`);
    return { app_id: appId, origin, position: start + i };
  });
  if (rows.length) await db('app_origins').insert(rows).onConflict(['app_id', 'origin']).ignore();
}

/** An app's allowed origins, in the operator's order. */
export async function listAppOrigins(db: Knex, appId: string): Promise<string[]> {
  return (await db('app_origins')
    .where({ app_id: appId })
    .orderBy([{ column: 'position' }, { column: 'origin' }])
    .pluck('origin')) as string[];
}
