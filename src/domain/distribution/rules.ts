// An app's token distribution rules (Treasury, Token Distribution): what its signed-in users may claim from the
// distribution wallet (migration 0025). One module for the Dashboard API's create / change / delete / list and for the
// SDK's list; every change is audited in the transaction that makes it. A deleted rule keeps its row (`deleted_at`,
// its claims stay in the history) but is invisible everywhere: it answers DISTRIBUTION_RULE_NOT_FOUND.
//
// Amounts are stored in stroops (bigint) and written as decimal strings; an amount change applies to later claims only,
// because each claim stores the amount it paid (distribution_claims.amount_stroops).
import type { Knex } from 'knex';
import type { NetworkName } from '../../config';
import type { App } from '../apps/store';
import { recordAudit, type AuditAction, type AuditActor } from '../audit/auditLog';
import type { Deps } from '../deps';
import { AppError } from '../errors';
import { newId } from '../ids';
import { fromStroops, toStroops } from '../money/amounts';
import { appWalletFor } from '../wallets/treasuryWallets';

/** At most `maxClaims` claims per user per `periodSeconds`; a rule without one allows one claim per user ever. */
export interface RateLimit {
  maxClaims: number;
  periodSeconds: number;
}

export interface DistributionRule {
  id: string;
  appId: string;
  network: NetworkName;
  name: string;
  /** `native` or `CODE:ISSUER`. */
  asset: string;
  amountPerClaimStroops: bigint;
  /** Claims in all; null: unlimited. */
  totalAllocation: number | null;
  /** Claims holding part of the allocation (reserved, submitted or paid). */
  claimedCount: number;
  validFrom: Date | null;
  validUntil: Date | null;
  /** null: one claim per user ever. */
  rateLimit: RateLimit | null;
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** The contract's DistributionRule (without the SDK list's `claimable` and `reason`). */
export interface DistributionRuleView {
  ruleId: string;
  name: string;
  asset: string;
  amountPerClaim: string;
  totalAllocation: number | null;
  claimedCount: number;
  validFrom: string | null;
  validUntil: string | null;
  rateLimit: RateLimit | null;
  enabled: boolean;
  createdAt: string;
}

/** The most rules listDistributionRules answers (its contract's maxItems). */
export const SDK_LIST_LIMIT = 100;
/** The most rules listAppDistributionRules answers (its contract's maxItems). */
export const DASHBOARD_LIST_LIMIT = 1000;

/** The largest amount a Stellar payment can carry: int64 stroops. */
const MAX_STROOPS = 2n ** 63n - 1n;

/** A `distribution_rules` row (migration 0025); bigint comes back from pg as text. */
interface RuleRow {
  id: string;
  app_id: string;
  network: NetworkName;
  name: string;
  asset: string;
  amount_per_claim_stroops: string;
  total_allocation: number | null;
  claimed_count: number;
  valid_from: Date | null;
  valid_until: Date | null;
  rate_limit_max_claims: number | null;
  rate_limit_period_seconds: number | null;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

function toRule(r: RuleRow): DistributionRule {
  return {
    id: r.id,
    appId: r.app_id,
    network: r.network,
    name: r.name,
    asset: r.asset,
    amountPerClaimStroops: BigInt(r.amount_per_claim_stroops),
    totalAllocation: r.total_allocation,
    claimedCount: r.claimed_count,
    validFrom: r.valid_from,
    validUntil: r.valid_until,
    rateLimit:
      r.rate_limit_max_claims !== null && r.rate_limit_period_seconds !== null
        ? { maxClaims: r.rate_limit_max_claims, periodSeconds: r.rate_limit_period_seconds }
        : null,
    enabled: r.enabled,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function ruleView(rule: DistributionRule): DistributionRuleView {
  return {
    ruleId: rule.id,
    name: rule.name,
    asset: rule.asset,
    amountPerClaim: fromStroops(rule.amountPerClaimStroops),
    totalAllocation: rule.totalAllocation,
    claimedCount: rule.claimedCount,
    validFrom: rule.validFrom?.toISOString() ?? null,
    validUntil: rule.validUntil?.toISOString() ?? null,
    rateLimit: rule.rateLimit ? { ...rule.rateLimit } : null,
    enabled: rule.enabled,
    createdAt: rule.createdAt.toISOString(),
  };
}

/** Whether the app distributes `asset` now: XLM always, an issued asset while it is among the app's assets. */
export function assetEnabledFor(app: Pick<App, 'assets'>, asset: string): boolean {
  return asset === 'native' || app.assets.includes(asset);
}

function ruleNotFound(): AppError {
  return new AppError('DISTRIBUTION_RULE_NOT_FOUND', { message: 'No distribution rule with this id in the app' });
}

/** The rules not deleted (every query of this module starts here). */
const liveRules = (db: Knex) => db<RuleRow>('distribution_rules').whereNull('deleted_at');

/** The app's rules, enabled or not, oldest first (the Dashboard's list). */
export async function listRules(db: Knex, appId: string): Promise<DistributionRule[]> {
  const rows = await liveRules(db)
    .where({ app_id: appId })
    .orderBy([
      { column: 'created_at', order: 'asc' },
      { column: 'id', order: 'asc' },
    ])
    .limit(DASHBOARD_LIST_LIMIT);
  return rows.map(toRule);
}

/** The app's enabled rules on `network`, newest first (the SDK's list). */
export async function listEnabledRules(db: Knex, appId: string, network: NetworkName): Promise<DistributionRule[]> {
  const rows = await liveRules(db)
    .where({ app_id: appId, network, enabled: true })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(SDK_LIST_LIMIT);
  return rows.map(toRule);
}

/**
 * A rule of the app that is not deleted, or undefined. `lock` takes the row (SELECT ... FOR UPDATE; pass a
 * transaction): what a claim or a change holds while it checks the allocation.
 */
export async function findRule(
  db: Knex,
  appId: string,
  ruleId: string,
  opts: { lock?: boolean } = {},
): Promise<DistributionRule | undefined> {
  const query = liveRules(db).where({ id: ruleId, app_id: appId });
  const row = await (opts.lock ? query.forUpdate() : query).first();
  return row ? toRule(row) : undefined;
}

/** findRule, or 404 DISTRIBUTION_RULE_NOT_FOUND. */
export async function requireRule(
  db: Knex,
  appId: string,
  ruleId: string,
  opts: { lock?: boolean } = {},
): Promise<DistributionRule> {
  const rule = await findRule(db, appId, ruleId, opts);
  if (!rule) throw ruleNotFound();
  return rule;
}

/** Collects field errors and throws them together as one 400 VALIDATION_ERROR (the request validator's shape). */
class FieldErrors {
  private readonly errors: Record<string, string[]> = {};
  add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
  }
  throwIfAny(): void {
    if (Object.keys(this.errors).length > 0)
      throw new AppError('VALIDATION_ERROR', {
        message: 'Request validation failed',
        details: { fieldErrors: this.errors },
      });
  }
}

/** A decimal amount in stroops; a field error when it is 0 or above what a payment can carry. */
function amountStroops(amount: string, errors: FieldErrors): bigint {
  const stroops = toStroops(amount); // the contract's Amount pattern was checked by the router
  if (stroops <= 0n) errors.add('amountPerClaim', 'must be greater than 0');
  else if (stroops > MAX_STROOPS) errors.add('amountPerClaim', `must be at most ${fromStroops(MAX_STROOPS)}`);
  return stroops;
}

/**
 * 422 DISTRIBUTION_RULE_WINDOW_INVALID when the window closes before it opens: a rule between two valid values, not a
 * malformed request, so not a VALIDATION_ERROR (details.fieldErrors still names the field, for forms).
 */
function checkWindow(from: Date | null, until: Date | null, blame: 'validFrom' | 'validUntil'): void {
  if (from === null || until === null || from.getTime() < until.getTime()) return;
  const message = blame === 'validUntil' ? 'must be after validFrom' : 'must be before validUntil';
  throw new AppError('DISTRIBUTION_RULE_WINDOW_INVALID', {
    message: `validFrom ${from.toISOString()} is not before validUntil ${until.toISOString()}`,
    details: { fieldErrors: { [blame]: [message] } },
  });
}

/** A request timestamp as a Date (null stays null); a field error for one JavaScript cannot read (a leap second). */
function timestamp(field: 'validFrom' | 'validUntil', value: string | null, errors: FieldErrors): Date | null {
  if (value === null) return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) {
    errors.add(field, 'must be a valid date-time');
    return null;
  }
  return date;
}

/** The row's columns of a rate limit (both null: one claim per user ever). */
const rateLimitColumns = (rateLimit: RateLimit | null) => ({
  rate_limit_max_claims: rateLimit?.maxClaims ?? null,
  rate_limit_period_seconds: rateLimit?.periodSeconds ?? null,
});

interface ChangeContext {
  actor: AuditActor;
  at: Date;
  ip?: string;
}

/** The audited form of a field's value (audit details are scalars). */
type Scalar = string | number | boolean | null;

function auditValues(rule: DistributionRule): Record<EditableField, Scalar> {
  return {
    name: rule.name,
    amountPerClaim: fromStroops(rule.amountPerClaimStroops),
    totalAllocation: rule.totalAllocation,
    validFrom: rule.validFrom?.toISOString() ?? null,
    validUntil: rule.validUntil?.toISOString() ?? null,
    rateLimit: rule.rateLimit ? `${rule.rateLimit.maxClaims}/${rule.rateLimit.periodSeconds}s` : null,
    enabled: rule.enabled,
  };
}

async function audit(
  trx: Knex,
  action: AuditAction,
  rule: DistributionRule,
  details: Record<string, Scalar>,
  ctx: ChangeContext,
): Promise<void> {
  await recordAudit(trx, {
    appId: rule.appId,
    action,
    actor: ctx.actor,
    ...(ctx.ip !== undefined ? { ip: ctx.ip } : {}),
    details: { ruleId: rule.id, ...details },
    at: ctx.at,
  });
}

/** A new rule as the contract's DistributionRuleInput has it. */
export interface NewRule {
  name: string;
  asset: string;
  amountPerClaim: string;
  totalAllocation?: number | null;
  validFrom?: string | null;
  validUntil?: string | null;
  rateLimit?: RateLimit | null;
  enabled?: boolean;
}

/**
 * Adds a rule on the app's network: 400 VALIDATION_ERROR for a time JavaScript cannot read, 422
 * DISTRIBUTION_RULE_WINDOW_INVALID for a window that closes before it opens, 422 DISTRIBUTION_ASSET_NOT_ENABLED for an asset the app does not configure, 409 DISTRIBUTION_NO_DISTRIBUTION_WALLET
 * when the app has no wallet doing distribution. Audited as `distribution_rule.created`.
 */
export async function createRule(
  deps: Pick<Deps, 'db'>,
  app: App,
  input: NewRule,
  ctx: ChangeContext,
): Promise<DistributionRule> {
  // 1. the values (400)
  const errors = new FieldErrors();
  const amount = amountStroops(input.amountPerClaim, errors);
  const validFrom = timestamp('validFrom', input.validFrom ?? null, errors);
  const validUntil = timestamp('validUntil', input.validUntil ?? null, errors);
  errors.throwIfAny();
  checkWindow(validFrom, validUntil, 'validUntil');
  // 2. the app: the asset is distributed (422), and a wallet pays the claims (409)
  if (!assetEnabledFor(app, input.asset))
    throw new AppError('DISTRIBUTION_ASSET_NOT_ENABLED', {
      message: `${input.asset} is not configured for this app`,
    });
  if (!(await appWalletFor(deps.db, app.id, app.network, 'distribution')))
    throw new AppError('DISTRIBUTION_NO_DISTRIBUTION_WALLET', {
      message: `The app has no distribution wallet on ${app.network}`,
    });
  // 3. store and audit together
  return deps.db.transaction(async (trx) => {
    const [record] = await trx<RuleRow>('distribution_rules')
      .insert({
        id: newId('dst'),
        app_id: app.id,
        network: app.network,
        name: input.name,
        asset: input.asset,
        amount_per_claim_stroops: amount.toString(),
        total_allocation: input.totalAllocation ?? null,
        claimed_count: 0,
        valid_from: validFrom,
        valid_until: validUntil,
        ...rateLimitColumns(input.rateLimit ?? null),
        enabled: input.enabled ?? true,
        created_at: ctx.at,
        updated_at: ctx.at,
      })
      .returning('*');
    const rule = toRule(record!);
    await audit(trx, 'distribution_rule.created', rule, { asset: rule.asset, ...auditValues(rule) }, ctx);
    return rule;
  });
}

/** What a change may touch (the contract's DistributionRulePatch): the asset is fixed. */
export interface RulePatch {
  name?: string;
  amountPerClaim?: string;
  totalAllocation?: number | null;
  validFrom?: string | null;
  validUntil?: string | null;
  rateLimit?: RateLimit | null;
  enabled?: boolean;
}

type EditableField = keyof RulePatch;
const EDITABLE: readonly EditableField[] = [
  'name',
  'amountPerClaim',
  'totalAllocation',
  'validFrom',
  'validUntil',
  'rateLimit',
  'enabled',
];

/**
 * Changes a rule; omitted fields stay, null clears a nullable one. The row is locked while the change is checked, so
 * `totalAllocation` is compared with the claims made up to that moment (422 DISTRIBUTION_ALLOCATION_BELOW_CLAIMED) and no
 * claim slips in between. A new amount applies to later claims only. 404 DISTRIBUTION_RULE_NOT_FOUND for a rule of
 * another app or a deleted one. Audited as `distribution_rule.updated` with the fields that changed, before and after;
 * a patch that changes nothing writes nothing.
 */
export async function updateRule(
  deps: Pick<Deps, 'db'>,
  app: App,
  ruleId: string,
  patch: RulePatch,
  ctx: ChangeContext,
): Promise<DistributionRule> {
  return deps.db.transaction(async (trx) => {
    // 1. the rule, locked against claims and other changes
    const current = await requireRule(trx, app.id, ruleId, { lock: true });
    // 2. the values as they would be (400)
    const errors = new FieldErrors();
    const amount = patch.amountPerClaim !== undefined ? amountStroops(patch.amountPerClaim, errors) : undefined;
    const validFrom =
      patch.validFrom !== undefined ? timestamp('validFrom', patch.validFrom, errors) : current.validFrom;
    const validUntil =
      patch.validUntil !== undefined ? timestamp('validUntil', patch.validUntil, errors) : current.validUntil;
    errors.throwIfAny();
    checkWindow(validFrom, validUntil, patch.validUntil !== undefined ? 'validUntil' : 'validFrom');
    if (
      patch.totalAllocation !== undefined &&
      patch.totalAllocation !== null &&
      patch.totalAllocation < current.claimedCount
    )
      throw new AppError('DISTRIBUTION_ALLOCATION_BELOW_CLAIMED', {
        message: `totalAllocation ${patch.totalAllocation} is below the ${current.claimedCount} claims already made`,
        details: { fieldErrors: { totalAllocation: [`must not be below claimedCount (${current.claimedCount})`] } },
      });
    // 3. the rule as it would be, and what differs
    const next: DistributionRule = {
      ...current,
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(amount !== undefined ? { amountPerClaimStroops: amount } : {}),
      ...(patch.totalAllocation !== undefined ? { totalAllocation: patch.totalAllocation } : {}),
      validFrom,
      validUntil,
      ...(patch.rateLimit !== undefined ? { rateLimit: patch.rateLimit } : {}),
      ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
    };
    const before = auditValues(current);
    const after = auditValues(next);
    const changed = EDITABLE.filter((f) => before[f] !== after[f]);
    if (changed.length === 0) return current;
    // 4. store and audit together
    const [record] = await trx<RuleRow>('distribution_rules')
      .where({ id: current.id })
      .update({
        name: next.name,
        amount_per_claim_stroops: next.amountPerClaimStroops.toString(),
        total_allocation: next.totalAllocation,
        valid_from: next.validFrom,
        valid_until: next.validUntil,
        ...rateLimitColumns(next.rateLimit),
        enabled: next.enabled,
        updated_at: ctx.at,
      })
      .returning('*');
    const rule = toRule(record!);
    const details: Record<string, Scalar> = { changed: changed.join(',') };
    for (const f of changed) {
      details[f] = after[f];
      details[`${f}Before`] = before[f];
    }
    await audit(trx, 'distribution_rule.updated', rule, details, ctx);
    return rule;
  });
}

/**
 * Deletes a rule (soft: `deleted_at` is set, its claims keep their rule); from then on it is not found. 404
 * DISTRIBUTION_RULE_NOT_FOUND for a rule of another app or one already deleted. Audited as `distribution_rule.deleted`.
 */
export async function deleteRule(deps: Pick<Deps, 'db'>, app: App, ruleId: string, ctx: ChangeContext): Promise<void> {
  await deps.db.transaction(async (trx) => {
    const [record] = await liveRules(trx)
      .where({ id: ruleId, app_id: app.id })
      .update({ deleted_at: ctx.at, updated_at: ctx.at })
      .returning('*');
    if (!record) throw ruleNotFound();
    const rule = toRule(record);
    await audit(
      trx,
      'distribution_rule.deleted',
      rule,
      { name: rule.name, asset: rule.asset, claimedCount: rule.claimedCount },
      ctx,
    );
  });
}
