// An app's Soroban auth allowlist (Treasury, Auth Policy): the rows that say which contracts and functions
// sign-auth-entry may sign for the app's users. One module for both surfaces (Server API with the secret key,
// Dashboard API with an operator session). A row names a contract (C-address, or '*' for any contract) and exact,
// case-sensitive function names (or ['*']); its contract is read from the chain on save (introspection.ts), outside
// the database transaction, and every change is audited in the transaction that makes it.
import { StrKey } from '@stellar/stellar-sdk';
import type { Knex } from 'knex';
import type { App } from '../apps/store';
import { recordAudit, type AuditAction, type AuditActor } from '../audit/auditLog';
import type { Deps } from '../deps';
import { AppError, fieldError } from '../errors';
import { newId } from '../ids';
import { contractFunctions } from './introspection';

export const ANY = '*';

export interface AuthPolicyRow {
  id: string;
  appId: string;
  /** A C-address or '*' (any contract). */
  contract: string;
  /** Exact function names, or ['*'] (any function). */
  functions: string[];
  label: string | null;
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** The contract's AuthPolicyRow. */
export interface AuthPolicyRowView {
  rowId: string;
  contract: string;
  functions: string[];
  label?: string;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

interface RowRecord {
  id: string;
  app_id: string;
  contract: string;
  functions: string[];
  label: string | null;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

function toRow(r: RowRecord): AuthPolicyRow {
  return {
    id: r.id,
    appId: r.app_id,
    contract: r.contract,
    functions: r.functions,
    label: r.label,
    enabled: r.enabled,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function rowView(row: AuthPolicyRow): AuthPolicyRowView {
  return {
    rowId: row.id,
    contract: row.contract,
    functions: [...row.functions],
    ...(row.label !== null ? { label: row.label } : {}),
    enabled: row.enabled,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The app's rows, oldest first. */
export async function listPolicyRows(db: Knex, appId: string): Promise<AuthPolicyRow[]> {
  const rows = await db<RowRecord>('auth_policy_rows')
    .where({ app_id: appId })
    .orderBy([
      { column: 'created_at', order: 'asc' },
      { column: 'id', order: 'asc' },
    ]);
  return rows.map(toRow);
}

/** The app's enabled rows: the policy sign-auth-entry decides by. */
export async function enabledPolicyRows(db: Knex, appId: string): Promise<AuthPolicyRow[]> {
  return (await listPolicyRows(db, appId)).filter((r) => r.enabled);
}

function rowNotFound(): AppError {
  return new AppError('AUTH_POLICY_ROW_NOT_FOUND', { message: 'No allowlist row with this id in the app' });
}

/** The functions as stored: '*' alone or distinct names (order kept); '*' mixed with names is a 400. */
function normalizedFunctions(functions: string[]): string[] {
  const distinct = [...new Set(functions)];
  if (distinct.includes(ANY) && distinct.length > 1)
    throw fieldError('functions', `must be ["*"] (any function) on its own, or function names without "*"`);
  return distinct;
}

/**
 * Checks a row's contract and functions against the chain: an any-contract row may only carry ['*'] (400
 * SOROBAN_AUTH_WILDCARD_REQUIRES_ANY_FUNCTION); a named contract must be deployed on the app's network and expose
 * every named function (422 CONTRACT_NOT_FOUND, CONTRACT_FUNCTION_UNKNOWN naming the first missing one).
 */
async function checkAgainstChain(
  deps: Pick<Deps, 'stellar'>,
  app: App,
  contract: string,
  functions: string[],
): Promise<void> {
  if (contract === ANY) {
    if (functions.length !== 1 || functions[0] !== ANY)
      throw new AppError('SOROBAN_AUTH_WILDCARD_REQUIRES_ANY_FUNCTION', {
        message: `An 'any contract' row may only carry the 'any function' wildcard ["*"]`,
      });
    return;
  }
  const exposed = await contractFunctions(deps, app.network, contract);
  const unknown = functions.filter((f) => f !== ANY && !exposed.has(f));
  if (unknown.length > 0)
    throw new AppError('CONTRACT_FUNCTION_UNKNOWN', {
      message: `Contract ${contract} has no function: ${unknown.join(', ')}`,
    });
}

interface ChangeContext {
  actor: AuditActor;
  at: Date;
  ip?: string;
}

async function audit(trx: Knex, action: AuditAction, row: AuthPolicyRow, ctx: ChangeContext): Promise<void> {
  await recordAudit(trx, {
    appId: row.appId,
    action,
    actor: ctx.actor,
    ...(ctx.ip !== undefined ? { ip: ctx.ip } : {}),
    // The row as it is after the change (audit details are scalars), so an investigation sees what was allowed when.
    details: {
      rowId: row.id,
      contract: row.contract,
      functions: row.functions.join(','),
      enabled: row.enabled,
      label: row.label,
    },
    at: ctx.at,
  });
}

export interface NewPolicyRow {
  contract: string;
  functions: string[];
  label?: string;
  enabled?: boolean;
}

/** Adds a row after checking it against the chain; audited as `auth_policy_row.created`. */
export async function createPolicyRow(
  deps: Pick<Deps, 'db' | 'stellar'>,
  app: App,
  input: NewPolicyRow,
  ctx: ChangeContext,
): Promise<AuthPolicyRow> {
  // 1. shape: a checksummed C-address or '*', and functions '*' alone or names
  if (input.contract !== ANY && !StrKey.isValidContract(input.contract))
    throw fieldError('contract', 'must be a contract C-address (checksum) or "*"');
  const functions = normalizedFunctions(input.functions);
  // 2. the chain (a network call: before the transaction)
  await checkAgainstChain(deps, app, input.contract, functions);
  // 3. store and audit together
  return deps.db.transaction(async (trx) => {
    const [record] = await trx('auth_policy_rows')
      .insert({
        id: newId('apr'),
        app_id: app.id,
        contract: input.contract,
        functions,
        label: input.label ?? null,
        enabled: input.enabled ?? true,
        created_at: ctx.at,
        updated_at: ctx.at,
      })
      .returning<RowRecord[]>('*');
    const row = toRow(record!);
    await audit(trx, 'auth_policy_row.created', row, ctx);
    return row;
  });
}

export interface PolicyRowPatch {
  functions?: string[];
  label?: string;
  enabled?: boolean;
}

/**
 * Changes a row's functions, label or enabled flag (the contract is fixed); new functions are checked against the
 * chain again. 404 AUTH_POLICY_ROW_NOT_FOUND for a row of another app. Audited as `auth_policy_row.updated`.
 */
export async function updatePolicyRow(
  deps: Pick<Deps, 'db' | 'stellar'>,
  app: App,
  rowId: string,
  patch: PolicyRowPatch,
  ctx: ChangeContext,
): Promise<AuthPolicyRow> {
  const current = await deps.db<RowRecord>('auth_policy_rows').where({ id: rowId, app_id: app.id }).first();
  if (!current) throw rowNotFound();
  const functions = patch.functions !== undefined ? normalizedFunctions(patch.functions) : undefined;
  if (functions !== undefined) await checkAgainstChain(deps, app, current.contract, functions);
  return deps.db.transaction(async (trx) => {
    const [record] = await trx('auth_policy_rows')
      .where({ id: rowId, app_id: app.id })
      .update({
        ...(functions !== undefined ? { functions } : {}),
        ...(patch.label !== undefined ? { label: patch.label } : {}),
        ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
        updated_at: ctx.at,
      })
      .returning<RowRecord[]>('*');
    if (!record) throw rowNotFound(); // deleted meanwhile
    const row = toRow(record);
    await audit(trx, 'auth_policy_row.updated', row, ctx);
    return row;
  });
}

/** Removes a row at once; 404 AUTH_POLICY_ROW_NOT_FOUND for a row of another app. Audited as `auth_policy_row.deleted`. */
export async function deletePolicyRow(
  deps: Pick<Deps, 'db'>,
  app: App,
  rowId: string,
  ctx: ChangeContext,
): Promise<void> {
  await deps.db.transaction(async (trx) => {
    const [record] = await trx('auth_policy_rows')
      .where({ id: rowId, app_id: app.id })
      .delete()
      .returning<RowRecord[]>('*');
    if (!record) throw rowNotFound();
    await audit(trx, 'auth_policy_row.deleted', toRow(record), ctx);
  });
}
