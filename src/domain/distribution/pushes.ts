// Distribution pushes: an operator pays an amount of an asset from the app's distribution wallet to a list of up to
// 10,000 of the app's users (named by user id, external id or wallet address). Creating a push records it with every
// recipient, resolved to a wallet or `skipped` with why, in one database transaction, before anything is sent; the
// push runner (pushRunner.ts, a periodic job) then pays the pending recipients in batches through the payout queue.
// Reads answer the push with its recipients counted by status; retry puts the failed recipients back to pending.
import type { Knex } from 'knex';
import type { NetworkName } from '../../config';
import type { App } from '../apps/store';
import { recordAudit, type AuditActor } from '../audit/auditLog';
import type { Deps } from '../deps';
import { AppError } from '../errors';
import { newId } from '../ids';
import { decodeCursor, encodeCursor, invalidCursor } from '../paging/cursor';
import { fromStroops, toStroops } from '../money/amounts';
import { appWalletFor } from '../wallets/treasuryWallets';
import { assetEnabledFor } from './rules';

/** The most recipients one push names, across its three lists. */
export const MAX_PUSH_RECIPIENTS = 10_000;

export type PushStatus = 'running' | 'completed';
/** `queued` is the runner's own (taken, nothing sent yet): reads show it as `pending`. */
export type RecipientStatus = 'pending' | 'queued' | 'submitted' | 'paid' | 'failed' | 'skipped';
export type RecipientKind = 'userId' | 'externalId' | 'walletAddress';

export interface PushRow {
  id: string;
  app_id: string;
  network: NetworkName;
  name: string;
  asset: string;
  amount_stroops: string;
  status: PushStatus;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

export interface RecipientRow {
  push_id: string;
  position: number;
  kind: RecipientKind;
  value: string;
  user_id: string | null;
  wallet_id: string | null;
  wallet_address: string | null;
  status: RecipientStatus;
  lease_until: Date | null;
  tx_id: string | null;
  tx_hash: string | null;
  envelope_xdr: string | null;
  valid_until: Date | null;
  failure_code: string | null;
  attempts: number;
  updated_at: Date;
}

export const pushes = (db: Knex) => db<PushRow>('distribution_pushes');
export const recipients = (db: Knex) => db<RecipientRow>('distribution_push_recipients');

/** A new push as the contract's DistributionPushInput has it. */
export interface NewPush {
  name?: string;
  asset: string;
  amount: string;
  recipients: { userIds?: string[]; externalIds?: string[]; walletAddresses?: string[] };
}

interface ChangeContext {
  actor: AuditActor;
  at: Date;
  ip?: string;
}

export interface PushCounts {
  total: number;
  pending: number;
  submitted: number;
  paid: number;
  failed: number;
  skipped: number;
}

/** The contract's DistributionPush. */
export interface PushView {
  pushId: string;
  name: string;
  asset: string;
  amount: string;
  status: PushStatus;
  counts: PushCounts;
  paidAmount: string;
  createdAt: string;
  completedAt: string | null;
}

/** The contract's DistributionPushRecipient. */
export interface RecipientView {
  recipient: { kind: RecipientKind; value: string };
  userId: string | null;
  walletAddress: string | null;
  status: Exclude<RecipientStatus, 'queued'>;
  txHash: string | null;
  failureCode: string | null;
  updatedAt: string;
}

const chunks = <T>(items: readonly T[], size: number): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
};

/** Rows per statement when reading or writing recipients: well under PostgreSQL's 65,535 bind parameters. */
const ROWS_PER_STATEMENT = 1000;

interface Resolved {
  userId: string;
  walletId: string;
  walletAddress: string;
}

/**
 * Each named recipient's user and wallet on the app's network, looked up a thousand at a time: a user id or external
 * id of a user of the app with a wallet on that network, or the address of such a wallet. Unknown names are absent.
 */
async function resolveRecipients(
  db: Knex,
  app: App,
  named: { kind: RecipientKind; value: string }[],
): Promise<Map<string, Resolved>> {
  const userIdByName = new Map<string, string>(); // `${kind}:${value}` -> user id
  const byName = new Map<string, Resolved>();
  const key = (kind: RecipientKind, value: string) => `${kind}:${value}`;
  const ofKind = (kind: RecipientKind) => [...new Set(named.filter((n) => n.kind === kind).map((n) => n.value))];
  for (const part of chunks(ofKind('userId'), ROWS_PER_STATEMENT)) {
    const rows = await db('users').where({ app_id: app.id }).whereIn('id', part).select<{ id: string }[]>('id');
    for (const r of rows) userIdByName.set(key('userId', r.id), r.id);
  }
  for (const part of chunks(ofKind('externalId'), ROWS_PER_STATEMENT)) {
    const rows = await db('users')
      .where({ app_id: app.id })
      .whereIn('external_id', part)
      .select<{ id: string; external_id: string }[]>('id', 'external_id');
    for (const r of rows) userIdByName.set(key('externalId', r.external_id), r.id);
  }
  const userIds = [...new Set(userIdByName.values())];
  const walletOfUser = new Map<string, { id: string; public_key: string }>();
  for (const part of chunks(userIds, ROWS_PER_STATEMENT)) {
    const rows = await db('wallets')
      .where({ app_id: app.id, network: app.network })
      .whereIn('user_id', part)
      .select<{ id: string; user_id: string; public_key: string }[]>('id', 'user_id', 'public_key');
    for (const r of rows) walletOfUser.set(r.user_id, r);
  }
  for (const [name, userId] of userIdByName) {
    const wallet = walletOfUser.get(userId);
    if (wallet) byName.set(name, { userId, walletId: wallet.id, walletAddress: wallet.public_key });
  }
  for (const part of chunks(ofKind('walletAddress'), ROWS_PER_STATEMENT)) {
    const rows = await db('wallets')
      .where({ app_id: app.id, network: app.network })
      .whereNotNull('user_id')
      .whereIn('public_key', part)
      .select<{ id: string; user_id: string; public_key: string }[]>('id', 'user_id', 'public_key');
    for (const r of rows)
      byName.set(key('walletAddress', r.public_key), {
        userId: r.user_id,
        walletId: r.id,
        walletAddress: r.public_key,
      });
  }
  return byName;
}

/** Records a push with all its recipients (see the file comment); the runner pays it. Audited. */
export async function createPush(
  deps: Pick<Deps, 'db'>,
  app: App,
  input: NewPush,
  ctx: ChangeContext,
): Promise<PushView> {
  // 1. the values: the contract's PositiveAmount was checked by the router; the recipients in all (422)
  const amount = toStroops(input.amount);
  const named: { kind: RecipientKind; value: string }[] = [
    ...(input.recipients.userIds ?? []).map((value) => ({ kind: 'userId' as const, value })),
    ...(input.recipients.externalIds ?? []).map((value) => ({ kind: 'externalId' as const, value })),
    ...(input.recipients.walletAddresses ?? []).map((value) => ({ kind: 'walletAddress' as const, value })),
  ];
  if (named.length === 0 || named.length > MAX_PUSH_RECIPIENTS) {
    throw new AppError('DISTRIBUTION_PUSH_RECIPIENTS_INVALID', {
      message:
        named.length === 0
          ? 'A push names at least one recipient'
          : `A push names at most ${MAX_PUSH_RECIPIENTS} recipients; this one names ${named.length}`,
      details: {
        fieldErrors: {
          recipients: [named.length === 0 ? 'name at least one recipient' : `at most ${MAX_PUSH_RECIPIENTS} in all`],
        },
      },
    });
  }
  // 2. the app: the asset is distributed (422), and a wallet pays (409)
  if (!assetEnabledFor(app, input.asset))
    throw new AppError('DISTRIBUTION_ASSET_NOT_ENABLED', { message: `${input.asset} is not configured for this app` });
  if (!(await appWalletFor(deps.db, app.id, app.network, 'distribution')))
    throw new AppError('DISTRIBUTION_NO_DISTRIBUTION_WALLET', {
      message: `The app has no distribution wallet on ${app.network}`,
    });
  // 3. each recipient resolved or skipped with why; a wallet named twice is paid once
  const resolved = await resolveRecipients(deps.db, app, named);
  const seenWallets = new Set<string>();
  const pushId = newId('dps');
  const rows: RecipientRow[] = named.map((n, position) => {
    const r = resolved.get(`${n.kind}:${n.value}`);
    const duplicate = r !== undefined && seenWallets.has(r.walletId);
    if (r) seenWallets.add(r.walletId);
    const skipped = !r ? 'RECIPIENT_NOT_FOUND' : duplicate ? 'DUPLICATE_RECIPIENT' : null;
    return {
      push_id: pushId,
      position,
      kind: n.kind,
      value: n.value,
      user_id: r?.userId ?? null,
      wallet_id: r?.walletId ?? null,
      wallet_address: r?.walletAddress ?? null,
      status: skipped ? 'skipped' : 'pending',
      lease_until: null,
      tx_id: null,
      tx_hash: null,
      envelope_xdr: null,
      valid_until: null,
      failure_code: skipped,
      attempts: 0,
      updated_at: ctx.at,
    };
  });
  const anyPending = rows.some((r) => r.status === 'pending');
  // 4. store and audit together
  await deps.db.transaction(async (trx) => {
    await pushes(trx).insert({
      id: pushId,
      app_id: app.id,
      network: app.network,
      name: input.name ?? 'Push',
      asset: input.asset,
      amount_stroops: amount.toString(),
      status: anyPending ? 'running' : 'completed',
      created_at: ctx.at,
      updated_at: ctx.at,
      completed_at: anyPending ? null : ctx.at,
    });
    for (const part of chunks(rows, ROWS_PER_STATEMENT)) await recipients(trx).insert(part);
    await recordAudit(trx, {
      appId: app.id,
      action: 'distribution_push.created',
      actor: ctx.actor,
      ...(ctx.ip !== undefined ? { ip: ctx.ip } : {}),
      details: { pushId, asset: input.asset, amount: fromStroops(amount), recipients: rows.length },
      at: ctx.at,
    });
  });
  return requirePush(deps.db, app.id, pushId);
}

async function countsOf(db: Knex, pushIds: string[]): Promise<Map<string, PushCounts>> {
  const rows = await recipients(db)
    .whereIn('push_id', pushIds)
    .groupBy('push_id', 'status')
    .select<{ push_id: string; status: RecipientStatus; n: string }[]>('push_id', 'status', db.raw('count(*) as n'));
  const out = new Map<string, PushCounts>();
  for (const id of pushIds) out.set(id, { total: 0, pending: 0, submitted: 0, paid: 0, failed: 0, skipped: 0 });
  for (const r of rows) {
    const c = out.get(r.push_id)!;
    const n = Number(r.n);
    c.total += n;
    c[r.status === 'queued' ? 'pending' : r.status] += n;
  }
  return out;
}

function pushView(row: PushRow, counts: PushCounts): PushView {
  const amount = BigInt(row.amount_stroops);
  return {
    pushId: row.id,
    name: row.name,
    asset: row.asset,
    amount: fromStroops(amount),
    status: row.status,
    counts,
    paidAmount: fromStroops(amount * BigInt(counts.paid)),
    createdAt: row.created_at.toISOString(),
    completedAt: row.completed_at?.toISOString() ?? null,
  };
}

function pushNotFound(): AppError {
  return new AppError('DISTRIBUTION_PUSH_NOT_FOUND', { message: 'No distribution push with this id in the app' });
}

/** The push with its counts; 404 DISTRIBUTION_PUSH_NOT_FOUND when the app has no such push. */
export async function requirePush(db: Knex, appId: string, pushId: string): Promise<PushView> {
  const row = await pushes(db).where({ id: pushId, app_id: appId }).first();
  if (!row) throw pushNotFound();
  return pushView(row, (await countsOf(db, [row.id])).get(row.id)!);
}

/** The app's pushes, newest first, a page at a time (keyset on created_at, id). */
export async function listPushes(
  db: Knex,
  appId: string,
  page: { limit: number; cursor?: string },
): Promise<{ pushes: PushView[]; nextCursor: string | null }> {
  const query = pushes(db).where({ app_id: appId });
  let offset = 0;
  if (page.cursor !== undefined) {
    const cursor = decodeCursor(page.cursor, 'dps');
    if (!cursor) throw invalidCursor();
    const after = await pushes(db).where({ id: cursor.afterId, app_id: appId }).first('created_at', 'id');
    if (!after) throw invalidCursor();
    offset = cursor.offset;
    query.where((q) =>
      q
        .where('created_at', '<', after.created_at)
        .orWhere((w) => w.where('created_at', after.created_at).where('id', '<', after.id)),
    );
  }
  const rows = await query
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(page.limit + 1);
  const shown = rows.slice(0, page.limit);
  const counts = await countsOf(
    db,
    shown.map((r) => r.id),
  );
  const last = shown.at(-1);
  return {
    pushes: shown.map((r) => pushView(r, counts.get(r.id)!)),
    nextCursor:
      rows.length > page.limit && last ? encodeCursor({ afterId: last.id, offset: offset + shown.length }) : null,
  };
}

/** A recipients page's cursor: the position of the last recipient shown, opaque to clients. */
const encodePosition = (position: number): string => Buffer.from(`p:${position}`, 'utf8').toString('base64url');

function decodePosition(value: string): number | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(value)) return undefined;
  const match = /^p:(\d{1,5})$/.exec(Buffer.from(value, 'base64url').toString('utf8'));
  return match ? Number(match[1]) : undefined;
}

/** A push's recipients in the order named, optionally in one state, a page at a time. */
export async function listPushRecipients(
  db: Knex,
  appId: string,
  pushId: string,
  page: { limit: number; cursor?: string; status?: Exclude<RecipientStatus, 'queued'> },
): Promise<{ recipients: RecipientView[]; nextCursor: string | null }> {
  if (!(await pushes(db).where({ id: pushId, app_id: appId }).first('id'))) throw pushNotFound();
  const query = recipients(db).where({ push_id: pushId });
  if (page.status === 'pending') query.whereIn('status', ['pending', 'queued']);
  else if (page.status) query.where({ status: page.status });
  if (page.cursor !== undefined) {
    const after = decodePosition(page.cursor);
    if (after === undefined) throw invalidCursor();
    query.where('position', '>', after);
  }
  const rows = await query.orderBy('position').limit(page.limit + 1);
  const shown = rows.slice(0, page.limit);
  const last = shown.at(-1);
  return {
    recipients: shown.map(recipientView),
    nextCursor: rows.length > page.limit && last ? encodePosition(last.position) : null,
  };
}

function recipientView(r: RecipientRow): RecipientView {
  return {
    recipient: { kind: r.kind, value: r.value },
    userId: r.user_id,
    walletAddress: r.wallet_address,
    status: r.status === 'queued' ? 'pending' : r.status,
    txHash: r.tx_hash,
    failureCode: r.failure_code,
    updatedAt: r.updated_at.toISOString(),
  };
}

/** Puts the push's failed recipients back to pending (the runner sends them again). Audited when any was. */
export async function retryPush(
  deps: Pick<Deps, 'db'>,
  appId: string,
  pushId: string,
  ctx: ChangeContext,
): Promise<{ push: PushView; retried: number }> {
  const retried = await deps.db.transaction(async (trx) => {
    const push = await pushes(trx).where({ id: pushId, app_id: appId }).forUpdate().first('id');
    if (!push) throw pushNotFound();
    const n = await recipients(trx).where({ push_id: pushId, status: 'failed' }).update({
      status: 'pending',
      failure_code: null,
      tx_hash: null,
      envelope_xdr: null,
      valid_until: null,
      lease_until: null,
      attempts: 0,
      updated_at: ctx.at,
    });
    if (n > 0) {
      await pushes(trx).where({ id: pushId }).update({ status: 'running', completed_at: null, updated_at: ctx.at });
      await recordAudit(trx, {
        appId,
        action: 'distribution_push.retried',
        actor: ctx.actor,
        ...(ctx.ip !== undefined ? { ip: ctx.ip } : {}),
        details: { pushId, recipients: n },
        at: ctx.at,
      });
    }
    return n;
  });
  return { push: await requirePush(deps.db, appId, pushId), retried };
}
