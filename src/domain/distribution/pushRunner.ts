// The push runner: one pass of the `distribution-pushes` periodic job (never two passes at once across processes).
//   1. recovery: recipients taken by a pass that died before sending (`queued`, lease lapsed) go back to `pending`;
//      recipients sent but not settled (`submitted`, older than a grace) are reconciled with the chain by their
//      recorded hash (settlement.ts): paid, failed (the fee recorded), or, past their time bound unapplied, pending
//      again (a new envelope is then safe: the old one can never apply).
//   2. a chunk of the oldest running push's pending recipients is taken (`queued`, with a lease), checked in bulk (the
//      wallet activated, its trustline read for a whole chunk in getLedgerEntries calls of 200 keys) and paid through
//      the payout queue, which batches them into transactions of up to 100 payments on the distribution wallet's
//      channel accounts; each recipient's envelope is recorded (`submitted`) before it is sent.
//   3. each recipient settles as its transaction confirms: `paid` (its records and wallet.funded, settlement.ts) or
//      `failed` with a code; a push with nothing open is `completed`.
import type { Knex } from 'knex';
import { DEFAULT_FUNDING_SETTINGS } from '../../config';
import { SYSTEM_ACTOR } from '../audit/auditLog';
import type { Deps } from '../deps';
import { appErrorOf } from '../errors';
import { LEASE_MARGIN_MS } from '../funding/queue';
import { appTreasuryWallets, walletsByDuty } from '../wallets/treasuryWallets';
import { findWallet, type WalletRecord } from '../wallets/store';
import { PayoutFailed, PayoutQueue, payoutWalletsOf, type PayoutTransaction, type PayoutWallets } from './payouts';
import { pushes, recipients, type PushRow, type RecipientRow } from './pushes';
import { reconcilePayout, recordPaidPayout } from './settlement';

export type PushRunnerDeps = Pick<Deps, 'db' | 'kms' | 'clock' | 'log' | 'secrets' | 'funding' | 'stellar' | 'jobs'> & {
  payoutQueue?: PayoutQueue;
};

/**
 * Recipients one pass takes. Twice what a ledger holds with the default 10 channel accounts (100 payments each), so
 * the second half's transactions are ready the moment the first half's channels are free again.
 */
export const PUSH_CHUNK = 2000;
/** How often the runner looks for work when it found none. */
export const PUSH_RUNNER_INTERVAL_MS = 1000;
/** A submitted recipient is reconciled once its pass had time to settle it itself. */
const SUBMITTED_GRACE_MS = 15_000;
/** Passes at most that a recipient is taken without its payment ever being sent (the RPC down, say). */
const MAX_ATTEMPTS = 5;
/** Trustline keys per getLedgerEntries call (the RPC's limit). */
const KEYS_PER_READ = 200;
/** Recipients the recovery step looks at per pass. */
const RECOVERY_BATCH = 500;

function leaseMs(deps: PushRunnerDeps): number {
  return (deps.funding ?? DEFAULT_FUNDING_SETTINGS).activationTimeoutSeconds * 1000 + LEASE_MARGIN_MS;
}

const open = (db: Knex, pushId: string, position: number) =>
  recipients(db).where({ push_id: pushId, position }).whereIn('status', ['queued', 'submitted']);

/** queued|submitted -> failed with why. */
async function markFailed(deps: PushRunnerDeps, r: RecipientRow, code: string): Promise<void> {
  await open(deps.db, r.push_id, r.position).update({
    status: 'failed',
    failure_code: code,
    lease_until: null,
    updated_at: deps.clock.now(),
  });
}

/** queued|submitted -> paid, with the payout's records and wallet.funded in the same database transaction. */
/** What settling a recipient needs of its push. */
type PushTerms = Pick<PushRow, 'id' | 'app_id' | 'network' | 'name' | 'asset' | 'amount_stroops'>;

async function markPaid(
  deps: PushRunnerDeps,
  push: PushTerms,
  r: RecipientRow,
  input: { distribution: WalletRecord; transaction: PayoutTransaction | undefined; hash: string; ledger: number },
): Promise<void> {
  await deps.db.transaction(async (trx) => {
    const at = deps.clock.now();
    const updated = await open(trx, r.push_id, r.position).update({
      status: 'paid',
      tx_hash: input.hash,
      lease_until: null,
      failure_code: null,
      updated_at: at,
    });
    if (updated === 0) return;
    const txId = await recordPaidPayout(deps, trx, {
      appId: push.app_id,
      network: push.network,
      userId: r.user_id!,
      walletId: r.wallet_id!,
      asset: push.asset,
      amountStroops: BigInt(push.amount_stroops),
      label: push.name,
      distribution: input.distribution,
      transaction: input.transaction,
      hash: input.hash,
      ledger: input.ledger,
    });
    if (txId) await recipients(trx).where({ push_id: r.push_id, position: r.position }).update({ tx_id: txId });
  });
}

/** Step 1 (see the file comment). */
async function recover(deps: PushRunnerDeps, now: Date): Promise<void> {
  await recipients(deps.db)
    .where({ status: 'queued' })
    .where('lease_until', '<', now)
    .update({ status: 'pending', lease_until: null, updated_at: now });
  const stale = await deps
    .db('distribution_push_recipients as r')
    .join('distribution_pushes as p', 'p.id', 'r.push_id')
    .where('r.status', 'submitted')
    .where('r.updated_at', '<', new Date(now.getTime() - SUBMITTED_GRACE_MS))
    .orderBy('r.updated_at')
    .limit(RECOVERY_BATCH)
    .select<(RecipientRow & PushTerms)[]>(
      'r.*',
      'p.id',
      'p.app_id',
      'p.network',
      'p.name',
      'p.asset',
      'p.amount_stroops',
    );
  for (const row of stale) {
    try {
      if (!row.tx_hash || !row.envelope_xdr) {
        await open(deps.db, row.push_id, row.position).update({ status: 'pending', updated_at: now });
        continue;
      }
      const outcome = await reconcilePayout(
        deps,
        {
          appId: row.app_id,
          network: row.network,
          txHash: row.tx_hash,
          envelopeXdr: row.envelope_xdr,
          validUntil: row.valid_until,
        },
        now,
      );
      if (outcome.kind === 'paid' && outcome.distribution) {
        await markPaid(deps, row, row, {
          distribution: outcome.distribution,
          transaction: outcome.sent,
          hash: row.tx_hash,
          ledger: outcome.ledger,
        });
      } else if (outcome.kind === 'failed') {
        await markFailed(deps, row, outcome.resultCode);
      } else if (outcome.kind === 'expired') {
        await open(deps.db, row.push_id, row.position).update({
          status: 'pending',
          tx_hash: null,
          envelope_xdr: null,
          valid_until: null,
          updated_at: now,
        });
      } else {
        await open(deps.db, row.push_id, row.position).update({ updated_at: now });
      }
    } catch (err) {
      // One recipient that cannot be settled now (the RPC is down, a corrupted envelope) never holds the others back.
      deps.log.warn(
        { err, pushId: row.push_id, position: row.position },
        'could not settle a push recipient; retrying later',
      );
      await open(deps.db, row.push_id, row.position).update({ updated_at: now });
    }
  }
}

/** Pushes with nothing open left become `completed`. */
async function completeFinished(db: Knex, now: Date): Promise<void> {
  await pushes(db)
    .where({ status: 'running' })
    .whereNotExists((q) =>
      q
        .from('distribution_push_recipients as r')
        .whereRaw('r.push_id = distribution_pushes.id')
        .whereIn('r.status', ['pending', 'queued', 'submitted']),
    )
    .update({ status: 'completed', completed_at: now, updated_at: now });
}

/** Step 2: up to PUSH_CHUNK pending recipients of the oldest running push that has any, taken with a lease. */
async function takeChunk(
  deps: PushRunnerDeps,
  now: Date,
): Promise<{ push: PushRow; taken: RecipientRow[] } | undefined> {
  const push = await pushes(deps.db)
    .where({ status: 'running' })
    .whereExists((q) =>
      q
        .from('distribution_push_recipients as r')
        .whereRaw('r.push_id = distribution_pushes.id')
        .where('r.status', 'pending'),
    )
    .orderBy('created_at')
    .first();
  if (!push) return undefined;
  const taken = await deps.db.transaction(async (trx) => {
    const positions = await recipients(trx)
      .where({ push_id: push.id, status: 'pending' })
      .orderBy('position')
      .limit(PUSH_CHUNK)
      .forUpdate()
      .skipLocked()
      .pluck('position');
    if (positions.length === 0) return [];
    return recipients(trx)
      .where({ push_id: push.id })
      .whereIn('position', positions)
      .update({
        status: 'queued',
        lease_until: new Date(now.getTime() + leaseMs(deps)),
        attempts: trx.raw('attempts + 1'),
        updated_at: now,
      })
      .returning('*');
  });
  return { push, taken: taken.sort((a, b) => a.position - b.position) };
}

/** Which of the wallets lack a trustline for the asset, read 200 at a time. */
async function missingTrustlines(wallets: PayoutWallets, asset: string, addresses: string[]): Promise<Set<string>> {
  const missing = new Set<string>();
  if (asset === 'native') return missing;
  for (let i = 0; i < addresses.length; i += KEYS_PER_READ) {
    const part = addresses.slice(i, i + KEYS_PER_READ);
    const holders = await wallets.gw.trustlineHolders(asset, part);
    for (const a of part) if (!holders.has(a)) missing.add(a);
  }
  return missing;
}

/** The failure code a recipient records for a payout that definitely did not happen. */
function failureCodeOf(failure: PayoutFailed): string {
  switch (failure.reason) {
    case 'no_distribution_account':
      return 'DISTRIBUTION_NO_DISTRIBUTION_WALLET';
    case 'distribution_balance':
      return 'op_underfunded';
    case 'trustline_reserve':
      return 'INSUFFICIENT_FUNDS_FOR_TRUSTLINE';
    case 'gas':
      return 'TX_POLICY_GAS_BALANCE_LOW';
    default:
      return failure.resultCode ?? 'tx_failed';
  }
}

/** Steps 2 and 3 for one chunk. */
async function payChunk(deps: PushRunnerDeps, push: PushRow, taken: RecipientRow[]): Promise<void> {
  let wallets: PayoutWallets;
  try {
    wallets = payoutWalletsOf(
      deps,
      walletsByDuty(await appTreasuryWallets(deps.db, push.app_id, push.network)),
      push.network,
    );
  } catch (err) {
    if (appErrorOf(err)?.code !== 'DISTRIBUTION_NO_DISTRIBUTION_WALLET') throw err;
    for (const r of taken) await markFailed(deps, r, 'DISTRIBUTION_NO_DISTRIBUTION_WALLET');
    return;
  }
  const records = new Map<string, WalletRecord>();
  for (const r of taken) {
    if (!r.wallet_id || records.has(r.wallet_id)) continue;
    const w = await findWallet(deps.db, r.wallet_id);
    if (w) records.set(w.id, w);
  }
  const payable: { r: RecipientRow; wallet: WalletRecord }[] = [];
  for (const r of taken) {
    const wallet = r.wallet_id ? records.get(r.wallet_id) : undefined;
    if (!wallet || wallet.fundingState !== 'funded') await markFailed(deps, r, 'WALLET_NOT_FUNDED');
    else payable.push({ r, wallet });
  }
  const missing = await missingTrustlines(
    wallets,
    push.asset,
    payable.map((p) => p.wallet.publicKey),
  );
  const queue = deps.payoutQueue ?? new PayoutQueue(deps, 1);
  await Promise.all(
    payable.map(async ({ r, wallet }) => {
      const needsTrustline = missing.has(wallet.publicKey);
      if (needsTrustline && wallet.custody !== 'custodial') {
        // A wallet in the user's own custody signs its own trustline: nothing to send until it has one.
        await markFailed(deps, r, 'op_no_trust');
        return;
      }
      try {
        const applied = await queue.pay(wallets, {
          id: `${push.id}/${r.position}`,
          wallet,
          asset: push.asset,
          amountStroops: BigInt(push.amount_stroops),
          actor: SYSTEM_ACTOR,
          needsTrustline,
          recordIntent: async (trx, sent) => {
            const updated = await open(trx, r.push_id, r.position).update({
              status: 'submitted',
              tx_hash: sent.hash,
              envelope_xdr: sent.envelopeXdr,
              valid_until: sent.validUntil,
              lease_until: null,
              updated_at: deps.clock.now(),
            });
            if (updated === 0) throw new Error(`push recipient ${r.push_id}/${r.position} was settled before sending`);
          },
        });
        await markPaid(deps, push, r, {
          distribution: wallets.distribution,
          transaction: applied.transaction,
          hash: applied.transaction.hash,
          ledger: applied.ledger,
        });
      } catch (err) {
        const failure = err instanceof PayoutFailed ? err : undefined;
        if (failure?.reason === 'unknown' && failure.sent) return; // sent, outcome unknown: recovery settles it
        if (failure && failure.reason !== 'unknown') {
          await markFailed(deps, r, failureCodeOf(failure));
          return;
        }
        // Not sent (an error before sending): pending again, until it has been taken too often.
        deps.log.warn({ err, pushId: push.id, position: r.position }, 'a push payment could not be sent');
        if (r.attempts >= MAX_ATTEMPTS) await markFailed(deps, r, 'not_sent');
        else
          await open(deps.db, r.push_id, r.position)
            .where({ status: 'queued' })
            .update({ status: 'pending', lease_until: null, updated_at: deps.clock.now() });
      }
    }),
  );
}

/** One pass (see the file comment): 'more' when pending recipients are left for the next pass at once. */
export async function runPushPass(deps: PushRunnerDeps): Promise<'more' | 'idle'> {
  const now = deps.clock.now();
  await recover(deps, now);
  const chunk = await takeChunk(deps, now);
  if (chunk && chunk.taken.length > 0) {
    deps.log.info({ pushId: chunk.push.id, recipients: chunk.taken.length }, 'paying a chunk of a distribution push');
    await payChunk(deps, chunk.push, chunk.taken);
  }
  await completeFinished(deps.db, deps.clock.now());
  if (!chunk) return 'idle';
  const left = await recipients(deps.db).where({ status: 'pending' }).first('push_id');
  return left ? 'more' : 'idle';
}
