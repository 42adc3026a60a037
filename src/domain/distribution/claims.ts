// Claims of distribution rules: a signed-in user takes a rule's amount from the app's distribution wallet, exactly
// within the rule's allocation and the user's rate limit, however many claims arrive at once in however many
// processes, and never paid twice across a crash.
//
//   1. reserve (one database transaction): the rule's row locked (SELECT ... FOR UPDATE), the refusal checks of
//      eligibility.ts on facts read under that lock (the user's live claims in the period among them), then the claim
//      inserted `reserved` and the rule's claimed_count raised. Claims of one rule queue on its row for a few
//      milliseconds; claims of other rules do not wait. Within a process, claims of one rule take turns before
//      asking for the lock, and a refusal already true without it (allocation used up, user at the limit) is
//      answered without it (see inTurn).
//   2. pay (payouts.ts, batched): the envelope is recorded on the claim (`submitted`, tx_hash, envelope) before it is
//      sent, then sent and confirmed.
//   3. settle: `paid` with the transaction in the user's and the distribution wallet's histories and a wallet.funded
//      event, in one database transaction; or `released` (the payment definitely did not happen: refused, failed in
//      its ledger, or never sent), which gives its part of the allocation and of the rate limit back.
//
// A claim whose outcome is unknown when the request ends (not confirmed in time, the process died) is settled by the
// recovery pass (runClaimRecovery): a `submitted` claim by looking its hash up on the chain (resending the recorded
// envelope while it can still apply, released once its time bound has passed unapplied), a `reserved` claim with no
// envelope after the lease time by releasing it. Settling is conditional on the claim's status, so the request and
// the recovery pass may race: one of them settles, the other finds nothing to do.
import type { Knex } from 'knex';
import type { NetworkName } from '../../config';
import { DEFAULT_FUNDING_SETTINGS } from '../../config';
import type { App } from '../apps/store';
import type { AuditActor } from '../audit/auditLog';
import type { Deps } from '../deps';
import { AppError } from '../errors';
import { LEASE_MARGIN_MS } from '../funding/queue';
import { newId } from '../ids';
import { fromStroops } from '../money/amounts';
import { appTreasuryWallets, walletsByDuty } from '../wallets/treasuryWallets';
import type { WalletRecord } from '../wallets/store';
import { claimRefusal, liveClaimCounts, type ClaimRefusal } from './eligibility';
import {
  PayoutFailed,
  PayoutQueue,
  payoutWalletsOf,
  type PayoutApplied,
  type PayoutIntent,
  type PayoutTransaction,
  type PayoutWallets,
} from './payouts';
import { assetEnabledFor, requireRule, type DistributionRule } from './rules';
import { assetCodeOf, recordPaidPayout, reconcilePayout } from './settlement';

export type ClaimDeps = Pick<Deps, 'db' | 'kms' | 'clock' | 'log' | 'secrets' | 'funding' | 'stellar' | 'jobs'> & {
  payoutQueue?: PayoutQueue;
};

export type ClaimStatus = 'reserved' | 'submitted' | 'paid' | 'released';

export interface ClaimRecord {
  id: string;
  ruleId: string;
  appId: string;
  userId: string;
  walletId: string;
  asset: string;
  amountStroops: bigint;
  status: ClaimStatus;
  txHash: string | null;
  envelopeXdr: string | null;
  validUntil: Date | null;
  failureCode: string | null;
  createdAt: Date;
}

interface ClaimRow {
  id: string;
  rule_id: string;
  app_id: string;
  user_id: string;
  wallet_id: string;
  asset: string;
  amount_stroops: string;
  status: ClaimStatus;
  request_key: string | null;
  tx_id: string | null;
  tx_hash: string | null;
  envelope_xdr: string | null;
  valid_until: Date | null;
  failure_code: string | null;
  created_at: Date;
  updated_at: Date;
}

const toClaim = (r: ClaimRow): ClaimRecord => ({
  id: r.id,
  ruleId: r.rule_id,
  appId: r.app_id,
  userId: r.user_id,
  walletId: r.wallet_id,
  asset: r.asset,
  amountStroops: BigInt(r.amount_stroops),
  status: r.status,
  txHash: r.tx_hash,
  envelopeXdr: r.envelope_xdr,
  validUntil: r.valid_until,
  failureCode: r.failure_code,
  createdAt: r.created_at,
});

/** What a claim answers (claimDistributionRule's content). */
export interface ClaimOutcome {
  ruleId: string;
  asset: string;
  assetCode: string;
  amount: string;
  txHash: string;
  status: 'PENDING' | 'SUCCESS';
}

export interface ClaimInput {
  app: App;
  userId: string;
  wallet: WalletRecord;
  ruleId: string;
  /** The request's Idempotency-Key: a retry that outlived the router's record finds its claim instead of a second. */
  requestKey?: string;
  actor: AuditActor;
}

const REFUSAL_MESSAGES: Record<ClaimRefusal, (rule: DistributionRule) => string> = {
  DISTRIBUTION_RULE_DISABLED: (r) => `The rule "${r.name}" is disabled`,
  DISTRIBUTION_ASSET_NOT_ENABLED: (r) => `${assetCodeOf(r.asset)} is not enabled for distribution`,
  DISTRIBUTION_NO_DISTRIBUTION_WALLET: () => 'The app has no distribution wallet on this network',
  DISTRIBUTION_RULE_NOT_STARTED: (r) => `The rule opens at ${r.validFrom?.toISOString()}`,
  DISTRIBUTION_RULE_EXPIRED: (r) => `The rule closed at ${r.validUntil?.toISOString()}`,
  DISTRIBUTION_RULE_EXHAUSTED: (r) => `The rule's total allocation of ${r.totalAllocation} claims is used up`,
  DISTRIBUTION_RATE_LIMIT_EXCEEDED: (r) =>
    r.rateLimit
      ? `This rule allows ${r.rateLimit.maxClaims} claim${r.rateLimit.maxClaims === 1 ? '' : 's'} per ${r.rateLimit.periodSeconds} s`
      : 'This rule allows one claim per user',
  WALLET_NOT_FUNDED: () => 'The wallet is not funded yet',
};

const claims = (db: Knex) => db<ClaimRow>('distribution_claims');

/** The outcome a claim answers, from its record (a replay, or after paying). */
function outcomeOf(claim: ClaimRecord, status: ClaimOutcome['status']): ClaimOutcome {
  return {
    ruleId: claim.ruleId,
    asset: claim.asset,
    assetCode: assetCodeOf(claim.asset),
    amount: fromStroops(claim.amountStroops),
    txHash: claim.txHash ?? '',
    status,
  };
}

/**
 * Reservations of one rule take turns within a process before they ask the database for its row lock. Without this, a
 * burst of claims of one rule holds every connection of the pool waiting on the lock, and the claims already
 * reserved cannot get a connection to pay out until the whole burst has passed (bench/results/2026-11-26-distribution.md:
 * no payment left before the last refusal). With it, one connection per process waits on the lock and the rest of the
 * pool serves the payouts. Exactness does not rest on it (the row lock does that, across processes); a promise chain
 * per key is all it takes, so no library.
 */
const reservationTurns = new Map<string, Promise<unknown>>();

async function inTurn<T>(key: string, work: () => Promise<T>): Promise<T> {
  const mine = (reservationTurns.get(key) ?? Promise.resolve()).then(work);
  const done = mine.then(
    () => undefined,
    () => undefined,
  );
  reservationTurns.set(key, done);
  try {
    return await mine;
  } finally {
    if (reservationTurns.get(key) === done) reservationTurns.delete(key);
  }
}

/**
 * Step 1: the claim reserved under the rule's lock, or the refusal. What does not change with other claims (the app's
 * assets, the wallet's state, the distribution wallet) is read first, outside the lock, so the lock is held for the
 * rule, the user's count and the two writes only.
 */
async function reserve(
  deps: ClaimDeps,
  input: ClaimInput,
  distribution: WalletRecord | undefined,
): Promise<{ claim: ClaimRecord; rule: DistributionRule }> {
  const [app, wallet] = await Promise.all([
    deps.db<{ id: string; assets: string[] | null }>('apps').where({ id: input.app.id }).first('assets'),
    deps.db<{ id: string; funding_state: string }>('wallets').where({ id: input.wallet.id }).first('funding_state'),
  ]);
  /** The rule (locked when `db` is the reserving transaction) and the refusal a claim gets as of now, if any. */
  const decide = async (db: Knex, lock: boolean) => {
    const now = deps.clock.now();
    const rule = await requireRule(db, input.app.id, input.ruleId, { lock });
    if (rule.network !== input.app.network) {
      throw new AppError('DISTRIBUTION_RULE_NOT_FOUND', { message: 'No distribution rule with this id in the app' });
    }
    const counts = await liveClaimCounts(db, { userId: input.userId, rules: [rule], now });
    const refusal = claimRefusal(rule, {
      now,
      assetEnabled: assetEnabledFor({ assets: app?.assets ?? [] }, rule.asset),
      hasDistributionWallet: distribution !== undefined,
      userLiveClaimsInPeriod: counts.get(rule.id) ?? 0,
      walletFunded: wallet?.funding_state === 'funded',
    });
    if (refusal) throw await refusalError(db, rule, refusal, input.userId, now);
    return { rule, now };
  };
  return inTurn(`${input.app.id}/${input.ruleId}`, async () => {
    // A refusal true without the lock is true (an allocation used up, a user at the limit, as of this read): it is
    // answered without queueing on the rule's row, which in a burst most claims would otherwise do.
    await decide(deps.db, false);
    return deps.db.transaction(async (trx) => {
      const { rule, now } = await decide(trx, true);
      const [row] = await claims(trx)
        .insert({
          id: newId('dcl'),
          rule_id: rule.id,
          app_id: input.app.id,
          user_id: input.userId,
          wallet_id: input.wallet.id,
          asset: rule.asset,
          amount_stroops: rule.amountPerClaimStroops.toString(),
          status: 'reserved',
          request_key: input.requestKey ?? null,
          created_at: now,
          updated_at: now,
        })
        .returning('*');
      await trx('distribution_rules').where({ id: rule.id }).increment('claimed_count', 1);
      return { claim: toClaim(row!), rule };
    });
  });
}

/** The refusal's error: its code and message, and Retry-After for the rate limit (when the oldest counted claim ages out). */
async function refusalError(
  db: Knex,
  rule: DistributionRule,
  refusal: ClaimRefusal,
  userId: string,
  now: Date,
): Promise<AppError> {
  const headers: Record<string, string> = {};
  if (refusal === 'DISTRIBUTION_RATE_LIMIT_EXCEEDED' && rule.rateLimit) {
    const oldest = await claims(db)
      .where({ rule_id: rule.id, user_id: userId })
      .whereNot('status', 'released')
      .where('created_at', '>', new Date(now.getTime() - rule.rateLimit.periodSeconds * 1000))
      .min<{ min: Date | null }>('created_at as min')
      .first();
    if (oldest?.min) {
      const freeAt = oldest.min.getTime() + rule.rateLimit.periodSeconds * 1000;
      headers['Retry-After'] = String(Math.max(1, Math.ceil((freeAt - now.getTime()) / 1000)));
    }
  }
  return new AppError(refusal, { message: REFUSAL_MESSAGES[refusal](rule), headers });
}

/** The claims' envelope, recorded before it is sent; fails when a claim was settled meanwhile (recovery). */
function claimIntent(deps: Pick<ClaimDeps, 'clock'>, claimId: string): PayoutIntent {
  return {
    group: 'claims',
    key: claimId,
    record: async (trx, sent, claimIds) => {
      const updated = await claims(trx).whereIn('id', claimIds).whereIn('status', ['reserved', 'submitted']).update({
        status: 'submitted',
        tx_hash: sent.hash,
        envelope_xdr: sent.envelopeXdr,
        valid_until: sent.validUntil,
        updated_at: deps.clock.now(),
      });
      if (updated !== claimIds.length) throw new Error('a claim was settled before its payment was sent');
    },
  };
}

/**
 * reserved|submitted -> paid, with the payout's records (settlement.ts) in the same database transaction. False when
 * the claim was already settled.
 */
async function markPaid(
  deps: ClaimDeps,
  claim: ClaimRecord,
  input: {
    network: NetworkName;
    distribution: WalletRecord;
    transaction: PayoutTransaction | undefined;
    hash: string;
    ledger: number;
    ruleName: string;
  },
): Promise<boolean> {
  return deps.db.transaction(async (trx) => {
    const at = deps.clock.now();
    const updated = await claims(trx)
      .where({ id: claim.id })
      .whereIn('status', ['reserved', 'submitted'])
      .update({ status: 'paid', tx_hash: input.hash, updated_at: at });
    if (updated === 0) return false;
    const txId = await recordPaidPayout(deps, trx, {
      appId: claim.appId,
      network: input.network,
      userId: claim.userId,
      walletId: claim.walletId,
      asset: claim.asset,
      amountStroops: claim.amountStroops,
      label: input.ruleName,
      distribution: input.distribution,
      transaction: input.transaction,
      hash: input.hash,
      ledger: input.ledger,
    });
    if (txId) await claims(trx).where({ id: claim.id }).update({ tx_id: txId });
    return true;
  });
}

/** reserved|submitted -> released: its part of the allocation and of the user's rate limit given back. */
async function release(db: Knex, claimId: string, failureCode: string, at: Date): Promise<boolean> {
  return db.transaction(async (trx) => {
    const [row] = await claims(trx)
      .where({ id: claimId })
      .whereIn('status', ['reserved', 'submitted'])
      .update({ status: 'released', failure_code: failureCode, updated_at: at })
      .returning('rule_id');
    if (!row) return false;
    await trx('distribution_rules').where({ id: row.rule_id }).decrement('claimed_count', 1);
    return true;
  });
}

/** The contract's answer for a payout that definitely did not happen (the claim is released first). */
function payoutError(failure: PayoutFailed): AppError {
  switch (failure.reason) {
    case 'no_distribution_account':
      return new AppError('DISTRIBUTION_NO_DISTRIBUTION_WALLET', { message: failure.message });
    case 'distribution_balance':
      return new AppError('TX_SUBMIT_FAILED', { message: failure.message, fields: { resultCode: 'op_underfunded' } });
    case 'trustline_reserve':
      return new AppError('INSUFFICIENT_FUNDS_FOR_TRUSTLINE', { message: failure.message });
    case 'gas':
      return new AppError('TX_POLICY_GAS_BALANCE_LOW', { message: failure.message });
    default:
      return new AppError('TX_SUBMIT_FAILED', {
        message: 'Stellar rejected the payment',
        fields: { resultCode: failure.resultCode ?? 'tx_failed' },
      });
  }
}

/** The service's queue; without one (a bare Deps), a queue of this call's own: no batching, same outcome. */
function queueOf(deps: ClaimDeps): PayoutQueue {
  return deps.payoutQueue ?? new PayoutQueue(deps, 1);
}

/** Claims `input.ruleId` for the user (see the file comment); answers SUCCESS, or PENDING when not confirmed yet. */
export async function claimRule(deps: ClaimDeps, input: ClaimInput): Promise<ClaimOutcome> {
  if (input.requestKey) {
    const earlier = await claims(deps.db).where({ user_id: input.userId, request_key: input.requestKey }).first();
    if (earlier) return replay(toClaim(earlier));
  }
  // The app's wallets, read once: whether one does distribution is a refusal fact; all three pay the claim.
  const duties = walletsByDuty(await appTreasuryWallets(deps.db, input.app.id, input.app.network));
  const { claim, rule } = await reserve(deps, input, duties.distribution);
  let wallets: PayoutWallets;
  try {
    wallets = payoutWalletsOf(deps, duties, rule.network);
  } catch (err) {
    await release(deps.db, claim.id, 'no_distribution_wallet', deps.clock.now());
    throw err;
  }
  let applied: PayoutApplied;
  try {
    applied = await queueOf(deps).pay(wallets, {
      id: claim.id,
      wallet: input.wallet,
      asset: claim.asset,
      amountStroops: claim.amountStroops,
      actor: input.actor,
      intent: claimIntent(deps, claim.id),
    });
  } catch (err) {
    const failure = err instanceof PayoutFailed ? err : undefined;
    if (failure?.reason === 'unknown' && failure.sent) {
      // Sent (or maybe sent), not confirmed in time: the recovery pass settles it from the chain.
      deps.log.warn({ err, claimId: claim.id, hash: failure.sent.hash }, 'distribution claim not confirmed yet');
      return outcomeOf({ ...claim, txHash: failure.sent.hash }, 'PENDING');
    }
    await release(deps.db, claim.id, failure?.resultCode ?? failure?.reason ?? 'not_sent', deps.clock.now());
    if (failure && failure.reason !== 'unknown') throw payoutError(failure);
    throw failure?.cause ?? err;
  }
  await markPaid(deps, claim, {
    network: rule.network,
    distribution: wallets.distribution,
    transaction: applied.transaction,
    hash: applied.transaction.hash,
    ledger: applied.ledger,
    ruleName: rule.name,
  });
  return outcomeOf({ ...claim, txHash: applied.transaction.hash }, 'SUCCESS');
}

/** An earlier claim of the same request: its outcome as it stands (a released one answers why). */
function replay(claim: ClaimRecord): ClaimOutcome {
  if (claim.status === 'paid') return outcomeOf(claim, 'SUCCESS');
  if (claim.status === 'released') {
    throw new AppError('TX_SUBMIT_FAILED', {
      message: 'This claim was not paid; claim again with a new Idempotency-Key',
      fields: { resultCode: claim.failureCode ?? 'tx_failed' },
    });
  }
  return outcomeOf(claim, 'PENDING');
}

// ---------------------------------------------------------------------------------------------------------------
// Recovery

/** Claims a recovery pass looks at; a pass that found this many runs again at once. */
export const CLAIM_RECOVERY_BATCH = 100;
/** A submitted claim is looked at once its request had time to settle it itself. */
const SUBMITTED_GRACE_MS = 15_000;

/** How long a claim may stay reserved without an envelope before its claimer is presumed dead. */
function reservedLeaseMs(deps: ClaimDeps): number {
  return (deps.funding ?? DEFAULT_FUNDING_SETTINGS).activationTimeoutSeconds * 1000 + LEASE_MARGIN_MS;
}

/**
 * One recovery pass (see the file comment). Safe beside live claimers and other instances: every settlement is
 * conditional on the claim's status. Answers how many claims it looked at.
 */
export async function runClaimRecovery(deps: ClaimDeps): Promise<number> {
  const now = deps.clock.now();
  const rows = await deps
    .db('distribution_claims as c')
    .join('distribution_rules as r', 'r.id', 'c.rule_id')
    .where((q) =>
      q
        .where((r) =>
          r.where('c.status', 'reserved').where('c.updated_at', '<', new Date(now.getTime() - reservedLeaseMs(deps))),
        )
        .orWhere((s) =>
          s.where('c.status', 'submitted').where('c.updated_at', '<', new Date(now.getTime() - SUBMITTED_GRACE_MS)),
        ),
    )
    .orderBy('c.updated_at')
    .limit(CLAIM_RECOVERY_BATCH)
    .select<(ClaimRow & { network: NetworkName; rule_name: string })[]>('c.*', 'r.network', 'r.name as rule_name');
  for (const row of rows) {
    const claim = toClaim(row);
    try {
      await recoverClaim(deps, claim, row.network, row.rule_name, now);
    } catch (err) {
      // One claim that cannot be settled now (the RPC is down, say) never holds the others back.
      deps.log.warn({ err, claimId: claim.id }, 'could not settle a distribution claim; retrying later');
      await claims(deps.db)
        .where({ id: claim.id })
        .whereIn('status', ['reserved', 'submitted'])
        .update({ updated_at: now });
    }
  }
  return rows.length;
}

async function recoverClaim(
  deps: ClaimDeps,
  claim: ClaimRecord,
  network: NetworkName,
  ruleName: string,
  now: Date,
): Promise<void> {
  if (claim.status === 'reserved' || !claim.txHash || !claim.envelopeXdr) {
    // The claimer died before it recorded an envelope: nothing was sent.
    await release(deps.db, claim.id, 'not_sent', now);
    return;
  }
  const outcome = await reconcilePayout(
    deps,
    { appId: claim.appId, network, txHash: claim.txHash, envelopeXdr: claim.envelopeXdr, validUntil: claim.validUntil },
    now,
  );
  switch (outcome.kind) {
    case 'paid':
      await markPaid(deps, claim, {
        network,
        distribution: outcome.distribution!,
        transaction: outcome.sent,
        hash: claim.txHash,
        ledger: outcome.ledger,
        ruleName,
      });
      return;
    case 'failed':
      await release(deps.db, claim.id, outcome.resultCode, now);
      return;
    case 'expired':
      await release(deps.db, claim.id, 'tx_too_late', now);
      return;
    case 'waiting':
      await claims(deps.db).where({ id: claim.id, status: 'submitted' }).update({ updated_at: now });
  }
}

/** How often the claim recovery pass runs. */
export const CLAIM_RECOVERY_INTERVAL_MS = 5_000;
