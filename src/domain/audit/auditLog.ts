// The audit log: security-relevant actions on an app (every decryption of a wallet key, operator changes to keys and
// the team), append-only (the database refuses updates and deletes: migration 0010). Writers pass the transaction of
// the change they record, so an entry exists exactly when the change does; key decryptions are recorded before the
// key is used (custody.ts), in their own statement, so a decryption is never unrecorded.
import type { Knex } from 'knex';
import { newId } from '../ids';
import { encodeCursor, type AuditCursor } from './cursor';

export type AuditAction =
  | 'key.decrypt'
  | 'api_key.created'
  | 'api_key.rotated'
  | 'api_key.revoked'
  | 'member.added'
  | 'member.removed'
  | 'wallet.funded'
  | 'webhook.updated'
  | 'webhook.secret_rotated'
  | 'fee_policy.updated'
  | 'tx.policy_denied'
  | 'auth_policy_row.created'
  | 'auth_policy_row.updated'
  | 'auth_policy_row.deleted'
  | 'distribution_rule.created'
  | 'distribution_push.created'
  | 'distribution_push.retried'
  | 'kyc_settings.updated'
  | 'ramp_settings.updated'
  | 'distribution_rule.updated'
  | 'distribution_rule.deleted';

/** Who caused an entry: an operator, an end user, an API key (Server API), or the service itself (background work). */
export type AuditActor = { type: 'operator' | 'user' | 'api_key'; id: string } | { type: 'system'; id: null };

export const SYSTEM_ACTOR: AuditActor = { type: 'system', id: null };

/**
 * The actor of an authenticated request: the signed-in end user or operator, else the API key (a Server API call).
 * Structural, so domain code does not depend on the HTTP layer's types.
 */
export function requestActor(auth: {
  user?: { userId: string };
  operator?: { operatorId: string };
  apiKey?: { keyId: string };
}): AuditActor {
  if (auth.user) return { type: 'user', id: auth.user.userId };
  if (auth.operator) return { type: 'operator', id: auth.operator.operatorId };
  if (auth.apiKey) return { type: 'api_key', id: auth.apiKey.keyId };
  return SYSTEM_ACTOR;
}

export interface AuditInput {
  appId: string;
  action: AuditAction;
  actor: AuditActor;
  walletId?: string;
  /** Why a key was decrypted (`tx.sign`, `wallet.activate`...). */
  purpose?: string;
  /** The client address of the request; absent for background work. */
  ip?: string;
  /** Ids of what changed, kept for investigations; never a secret. */
  details?: Record<string, string | number | boolean | null>;
  at: Date;
}

function auditRow(id: string, input: AuditInput) {
  return {
    id,
    app_id: input.appId,
    action: input.action,
    actor_type: input.actor.type,
    actor_id: input.actor.id,
    wallet_id: input.walletId ?? null,
    purpose: input.purpose ?? null,
    ip: input.ip ?? null,
    details: input.details ?? {},
    created_at: input.at,
  };
}

export async function recordAudit(db: Knex, input: AuditInput): Promise<string> {
  const id = newId('aud');
  await db('audit_log').insert(auditRow(id, input));
  return id;
}

/** Several entries in one insert (one round trip); their ids in the order given. */
export async function recordAudits(db: Knex, inputs: AuditInput[]): Promise<string[]> {
  if (inputs.length === 0) return [];
  const ids = inputs.map(() => newId('aud'));
  await db('audit_log').insert(inputs.map((input, i) => auditRow(ids[i]!, input)));
  return ids;
}

/**
 * recordAudits within a statement of the caller's: the entries are inserted only if `when`, a CTE of that statement,
 * answers a row. The rows travel as one JSON binding, read back with the table's own row type.
 */
export function auditEntriesSql(inputs: AuditInput[], when: string): { sql: string; bindings: string[] } {
  const columns = 'id, app_id, action, actor_type, actor_id, wallet_id, purpose, ip, details, created_at';
  const rows = inputs.map((input) => auditRow(newId('aud'), input));
  return {
    sql: `insert into audit_log (${columns})
     select ${columns} from json_populate_recordset(null::audit_log, ?::json)
     where exists (select 1 from ${when})
     returning id`,
    bindings: [JSON.stringify(rows)],
  };
}

export interface AuditEntry {
  id: string;
  action: AuditAction;
  actor: AuditActor;
  walletId: string | null;
  purpose: string | null;
  ip: string | null;
  createdAt: Date;
}

export interface AuditQuery {
  appId: string;
  action?: string;
  walletId?: string;
  limit: number;
  /** Offset paging; ignored when `cursor` is given. */
  offset: number;
  cursor?: AuditCursor;
}

export interface AuditPage {
  entries: AuditEntry[];
  /** Entries matching the filters, over all pages. */
  total: number;
  /** Position of the page's first entry. */
  offset: number;
  /** Opens the next page; null on the last one. */
  nextCursor: string | null;
}

/** An `audit_log` row as listed (migration 0010); actor_id is null exactly for the system actor. */
interface AuditRow {
  id: string;
  action: AuditAction;
  actor_type: AuditActor['type'];
  actor_id: string | null;
  wallet_id: string | null;
  purpose: string | null;
  ip: string | null;
  created_at: Date;
}

function toEntry(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    action: row.action,
    actor:
      row.actor_type === 'system' || row.actor_id === null ? SYSTEM_ACTOR : { type: row.actor_type, id: row.actor_id },
    walletId: row.wallet_id,
    purpose: row.purpose,
    ip: row.ip,
    createdAt: row.created_at,
  };
}

/** Whether `cursor` names an entry of this app: a cursor from another list or app is refused, not followed. */
export async function isCursorOfApp(db: Knex, appId: string, cursor: AuditCursor): Promise<boolean> {
  return Boolean(await db('audit_log').where({ id: cursor.afterId, app_id: appId }).first('id'));
}

/** A page of an app's entries, newest first (ties broken by id, so pages never overlap or skip). */
export async function listAuditLog(db: Knex, q: AuditQuery): Promise<AuditPage> {
  const matching = () => {
    const query = db('audit_log').where({ app_id: q.appId });
    if (q.action !== undefined) query.where({ action: q.action });
    if (q.walletId !== undefined) query.where({ wallet_id: q.walletId });
    return query;
  };
  const page = matching()
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(q.limit + 1) // one more than asked tells whether a next page exists
    .select<AuditRow[]>('id', 'action', 'actor_type', 'actor_id', 'wallet_id', 'purpose', 'ip', 'created_at');
  // Keyset: strictly after the cursor's entry in (created_at, id) order, read from the row itself (exact timestamps).
  if (q.cursor)
    page.whereRaw('(created_at, id) < (select c.created_at, c.id from audit_log c where c.id = ?)', [q.cursor.afterId]);
  else page.offset(q.offset);
  const [rows, counted] = await Promise.all([page, matching().count<{ count: string }[]>({ count: '*' })]);
  const offset = q.cursor ? q.cursor.offset : q.offset;
  const entries = rows.slice(0, q.limit).map(toEntry);
  const last = entries.at(-1);
  return {
    entries,
    total: Number(counted[0]?.count ?? 0),
    offset,
    nextCursor:
      rows.length > q.limit && last ? encodeCursor({ afterId: last.id, offset: offset + entries.length }) : null,
  };
}
