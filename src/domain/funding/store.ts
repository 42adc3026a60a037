// Storage of the funding state machine: `wallets.funding_state` (unfunded -> activating -> funded) and the
// activation record beside it (migration 0014). Every transition is one conditional UPDATE on the wallet row, so of
// any number of concurrent callers, across any number of instances, exactly one moves the wallet: the others' WHERE no
// longer matches once the winner commits. A funded wallet's activation also goes into the transactions and the
// user's history (migration 0016), in the same transaction.
import type { Knex } from 'knex';
import type { JobQueue } from '../../infra/jobs/jobQueue';
import type { NetworkName } from '../../config';
import { toStroops } from '../money/amounts';
import type { AuditActor } from '../audit/auditLog';
import { recordAudit } from '../audit/auditLog';
import { addHistory, findTransactionByHash, insertTransaction, type HistoryEntry } from '../transactions/store';
import { reportLowBalance, type SponsorBalanceReading } from './lowBalance';
import { recordOutboxEvent } from '../events/outbox';

export type ActivationTrigger = 'server_api' | 'dashboard' | 'sign_in';

export interface ActivationRecord {
  walletId: string;
  appId: string;
  trigger: ActivationTrigger;
  requestedBy: AuditActor;
  attempts: number;
  txHash: string | null;
  envelopeXdr: string | null;
  validUntil: Date | null;
  leaseUntil: Date | null;
  nextAttemptAt: Date;
  lastError: string | null;
  ledger: number | null;
}

/** A `wallet_activations` row (migration 0014). */
interface ActivationRow {
  wallet_id: string;
  app_id: string;
  trigger: ActivationTrigger;
  requested_by: ActivationRecord['requestedBy'];
  attempts: number;
  tx_hash: string | null;
  envelope_xdr: string | null;
  valid_until: Date | null;
  lease_until: Date | null;
  next_attempt_at: Date;
  last_error: string | null;
  ledger: number | null;
  created_at: Date;
  updated_at: Date;
}

function toRecord(row: ActivationRow): ActivationRecord {
  return {
    walletId: row.wallet_id,
    appId: row.app_id,
    trigger: row.trigger,
    requestedBy: row.requested_by,
    attempts: row.attempts,
    txHash: row.tx_hash,
    envelopeXdr: row.envelope_xdr,
    validUntil: row.valid_until,
    leaseUntil: row.lease_until,
    nextAttemptAt: row.next_attempt_at,
    lastError: row.last_error,
    ledger: row.ledger,
  };
}

/**
 * unfunded -> activating, with a fresh activation record leased to the caller until `leaseUntil`. False when the
 * wallet is not unfunded (already activating or funded, or claimed by a concurrent caller). Call inside a transaction.
 */
export async function claimActivation(
  trx: Knex.Transaction,
  input: {
    walletId: string;
    appId: string;
    trigger: ActivationTrigger;
    requestedBy: AuditActor;
    at: Date;
    leaseUntil: Date;
  },
): Promise<boolean> {
  const claimed = await trx('wallets')
    .where({ id: input.walletId, funding_state: 'unfunded' })
    .update({ funding_state: 'activating' });
  if (claimed === 0) return false;
  const fresh = {
    trigger: input.trigger,
    requested_by: JSON.stringify(input.requestedBy),
    attempts: 0,
    tx_hash: null,
    envelope_xdr: null,
    valid_until: null,
    lease_until: input.leaseUntil,
    next_attempt_at: input.leaseUntil,
    last_error: null,
    ledger: null,
    reserve_stroops: null,
    sponsor_public_key: null,
    updated_at: input.at,
  };
  await trx('wallet_activations')
    .insert({ wallet_id: input.walletId, app_id: input.appId, created_at: input.at, ...fresh })
    .onConflict('wallet_id')
    .merge(fresh);
  return true;
}

export async function findActivation(db: Knex, walletId: string): Promise<ActivationRecord | undefined> {
  const row = await db<ActivationRow>('wallet_activations').where({ wallet_id: walletId }).first();
  return row ? toRecord(row) : undefined;
}

/**
 * The intent, recorded before the envelope is sent: a crash after this line leaves a hash to look up. The lease is
 * extended past the envelope's time bound, so nobody else rebuilds it while it may still apply.
 */
export async function recordAttempt(
  db: Knex,
  walletId: string,
  input: {
    txHash: string;
    envelopeXdr: string;
    validUntil: Date;
    leaseUntil: Date;
    sponsorPublicKey: string;
    at: Date;
  },
): Promise<void> {
  await db('wallet_activations')
    .where({ wallet_id: walletId })
    .update({
      tx_hash: input.txHash,
      envelope_xdr: input.envelopeXdr,
      valid_until: input.validUntil,
      lease_until: input.leaseUntil,
      next_attempt_at: input.leaseUntil,
      sponsor_public_key: input.sponsorPublicKey,
      attempts: db.raw('attempts + 1'),
      updated_at: input.at,
    });
}

/** The transaction that carried an activation (a batch's fee-bump, shared by every wallet of the batch). */
export interface ActivationTransaction {
  /** The fee-bump's hash: what was recorded, sent and confirmed. */
  hash: string;
  /** The activation transaction's own hash (absent for an envelope from before fee-bumps). */
  innerHash?: string;
  envelopeXdr: string;
  /** The inner transaction's source: the funding wallet or a channel account. */
  sourceAccount: string;
  /** Who paid the fee: the gas wallet. */
  feeSource: string;
  feeStroops: bigint;
  opsCount: number;
}

/** How an activation reads in the user's history. */
export const ACTIVATION_SUMMARY = 'Wallet activated';

export interface FundedOutcome {
  walletId: string;
  appId: string;
  network: NetworkName;
  /** The wallet's end user (null for none). */
  userId: string | null;
  publicKey: string;
  ledger: number | null;
  txHash: string | null;
  /** The transaction as sent, when known (not when the account was found on the ledger without a recorded attempt). */
  transaction?: ActivationTransaction;
  startingBalanceXlm: string;
  reserveStroops: bigint;
  sponsorPublicKey: string;
  assets: string[];
  requestedBy: AuditActor;
  at: Date;
  /** The funding wallet's balance after this activation: reported as sponsor.balance.low when it is low (lowBalance.ts). */
  sponsorBalance?: Omit<SponsorBalanceReading, 'appId' | 'at'>;
}

/**
 * The activation in the transactions and the wallet's history (`received`, "Wallet activated"). One batch is one
 * transaction row, written by the first of its wallets to be marked funded; the others only add their history row.
 */
async function recordActivationTransaction(
  trx: Knex.Transaction,
  outcome: FundedOutcome,
  tx: ActivationTransaction,
): Promise<void> {
  const history: HistoryEntry[] = [{ walletId: outcome.walletId, direction: 'received', summary: ACTIVATION_SUMMARY }];
  const starting = toStroops(outcome.startingBalanceXlm) > 0n;
  const inserted = await insertTransaction(
    trx,
    {
      appId: outcome.appId,
      network: outcome.network,
      walletId: outcome.walletId,
      userId: outcome.userId,
      origin: 'activation',
      status: 'SUCCESS',
      stage: 'confirmed',
      operation: 'createAccount',
      opsCount: tx.opsCount,
      summary: ACTIVATION_SUMMARY,
      sourceAccount: tx.sourceAccount,
      destination: outcome.publicKey,
      asset: starting ? 'native' : null,
      amount: starting ? outcome.startingBalanceXlm : null,
      hash: tx.hash,
      ...(tx.innerHash ? { innerHash: tx.innerHash } : {}),
      envelopeXdr: tx.envelopeXdr,
      feeStroops: tx.feeStroops,
      feeSource: tx.feeSource,
      resultCode: 'tx_success',
      ...(outcome.ledger !== null ? { ledger: outcome.ledger } : {}),
      submittedAt: outcome.at,
      confirmedAt: outcome.at,
      at: outcome.at,
    },
    history,
  );
  if (inserted) return;
  // Another wallet of the batch (or whoever else recorded the hash first) wrote the row: a concurrent insert of the
  // same hash waited for that one to commit, so the row is visible now.
  const existing = await findTransactionByHash(trx, outcome.network, tx.hash);
  if (existing) await addHistory(trx, existing.id, history, outcome.at);
}

/**
 * Trustlines owed for assets the app enabled after this activation was built: a settings change that committed while
 * the wallet was still unfunded did not count it (trustlineBackfill.ts). The app row's share lock orders this with a
 * settings change (which locks the row for update first): either this reads the new list, or the change, waiting for
 * this transaction, sees the wallet funded and records the work itself.
 */
async function owedTrustlines(trx: Knex.Transaction, outcome: FundedOutcome): Promise<void> {
  const app = await trx<{ id: string; assets: string[] | null }>('apps')
    .where({ id: outcome.appId })
    .forShare()
    .first('assets');
  const owed = (app?.assets ?? []).filter((asset) => !outcome.assets.includes(asset));
  if (owed.length === 0) return;
  const at = outcome.at;
  await trx('trustline_backfills')
    .insert(
      owed.map((asset) => ({
        wallet_id: outcome.walletId,
        asset,
        app_id: outcome.appId,
        next_attempt_at: at,
        created_at: at,
        updated_at: at,
      })),
    )
    .onConflict(['wallet_id', 'asset'])
    .ignore();
}

/**
 * activating -> funded, with the outcome, the audit entry, the events (wallet.activated, trustline.added per asset,
 * sponsor.balance.low when it is due), the activation's transaction and history rows, and the trustlines owed for
 * assets enabled meanwhile, in one transaction. False when the wallet was not activating (someone else recorded the
 * outcome first).
 */
export async function markFunded(deps: { db: Knex; jobs: JobQueue }, outcome: FundedOutcome): Promise<boolean> {
  const { db } = deps;
  return db.transaction(async (trx) => {
    const moved = await trx('wallets')
      .where({ id: outcome.walletId, funding_state: 'activating' })
      .update({ funding_state: 'funded', funded_at: outcome.at });
    if (moved === 0) return false;
    await owedTrustlines(trx, outcome);
    if (outcome.transaction) await recordActivationTransaction(trx, outcome, outcome.transaction);
    await trx('wallet_activations')
      .where({ wallet_id: outcome.walletId })
      .update({
        ledger: outcome.ledger,
        tx_hash: outcome.txHash ?? trx.raw('tx_hash'),
        reserve_stroops: outcome.reserveStroops.toString(),
        sponsor_public_key: outcome.sponsorPublicKey,
        lease_until: null,
        last_error: null,
        updated_at: outcome.at,
      });
    await recordAudit(trx, {
      appId: outcome.appId,
      action: 'wallet.funded',
      actor: outcome.requestedBy,
      walletId: outcome.walletId,
      details: { txHash: outcome.txHash, ledger: outcome.ledger, reserveStroops: outcome.reserveStroops.toString() },
      at: outcome.at,
    });
    const base = { appId: outcome.appId, at: outcome.at };
    await recordOutboxEvent(deps, trx, {
      ...base,
      type: 'wallet.activated',
      data: { walletId: outcome.walletId, address: outcome.publicKey, activatedAt: outcome.at.toISOString() },
    });
    for (const asset of outcome.assets)
      await recordOutboxEvent(deps, trx, {
        ...base,
        type: 'trustline.added',
        data: { walletId: outcome.walletId, asset },
      });
    if (outcome.sponsorBalance) await reportLowBalance(deps, trx, { ...outcome.sponsorBalance, ...base });
    return true;
  });
}

/** activating -> unfunded: the activation definitely did not happen and the caller was told (402, 503). */
export async function releaseActivation(db: Knex, walletId: string, error: string, at: Date): Promise<void> {
  await db.transaction(async (trx) => {
    const moved = await trx('wallets')
      .where({ id: walletId, funding_state: 'activating' })
      .update({ funding_state: 'unfunded' });
    if (moved)
      await trx('wallet_activations')
        .where({ wallet_id: walletId })
        .update({ lease_until: null, last_error: error, updated_at: at });
  });
}

/** Stays activating: the recovery loop tries again at `nextAttemptAt` (the lease ends then too). */
export async function scheduleRetry(
  db: Knex,
  walletId: string,
  error: string,
  nextAttemptAt: Date,
  at: Date,
): Promise<void> {
  await db('wallet_activations')
    .where({ wallet_id: walletId })
    .whereNull('ledger')
    .update({ lease_until: nextAttemptAt, next_attempt_at: nextAttemptAt, last_error: error, updated_at: at });
}

/**
 * Leases up to `limit` activating wallets whose next attempt is due and whose lease has run out (a request gave up,
 * or the process driving it died) to the calling instance until `leaseUntil`. SKIP LOCKED lets several instances
 * scan at once without taking the same wallet.
 */
export async function leaseDueActivations(
  db: Knex,
  input: { now: Date; leaseUntil: Date; limit: number },
): Promise<ActivationRecord[]> {
  const rows = await db.transaction(async (trx) => {
    const due = await trx('wallet_activations as a')
      .join('wallets as w', 'w.id', 'a.wallet_id')
      .where('w.funding_state', 'activating')
      .whereNull('a.ledger')
      .where('a.next_attempt_at', '<=', input.now)
      .where((q) => q.whereNull('a.lease_until').orWhere('a.lease_until', '<=', input.now))
      .orderBy('a.next_attempt_at')
      .limit(input.limit)
      .forUpdate('a')
      .skipLocked()
      .select<{ wallet_id: string }[]>('a.wallet_id');
    if (due.length === 0) return [];
    return trx('wallet_activations')
      .whereIn(
        'wallet_id',
        due.map((r) => r.wallet_id),
      )
      .update({ lease_until: input.leaseUntil, updated_at: input.now })
      .returning<ActivationRow[]>('*');
  });
  return rows.map(toRecord);
}

/** Activating wallets with a sent envelope, whoever holds their lease (start-up reconciliation reads them). */
export async function sentActivations(db: Knex, limit: number): Promise<ActivationRecord[]> {
  const rows = await db('wallet_activations as a')
    .join('wallets as w', 'w.id', 'a.wallet_id')
    .where('w.funding_state', 'activating')
    .whereNull('a.ledger')
    .whereNotNull('a.tx_hash')
    .orderBy('a.updated_at')
    .limit(limit)
    .select<ActivationRow[]>('a.*');
  return rows.map(toRecord);
}

/** Total reserve the app's funded user wallets lock in their sponsors (Treasury's lockedReserveXlm), in stroops. */
export async function lockedReserveStroops(db: Knex, appId: string): Promise<bigint> {
  const row = await db('wallet_activations as a')
    .join('wallets as w', 'w.id', 'a.wallet_id')
    .where({ 'a.app_id': appId, 'w.funding_state': 'funded' })
    .whereNotNull('w.user_id')
    .sum<{ total: string | null }>('a.reserve_stroops as total')
    .first();
  return BigInt(row?.total ?? 0);
}
