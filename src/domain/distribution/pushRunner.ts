// The push runner: one pass of the `distribution-pushes` periodic job (never two passes at once across processes).
//   1. recovery: recipients taken by a pass that died before sending (`queued`, lease lapsed) go back to `pending`;
//      recipients sent but not settled (`submitted`, older than a grace) are reconciled with the chain by their
//      recorded hash (settlement.ts): paid, failed (the fee recorded), or, past their time bound unapplied, pending
//      again (a new envelope is then safe: the old one can never apply).
//   2. chunks of the oldest running push's pending recipients are taken (`queued`, with a lease), checked in bulk (the
//      app active, the asset still its, the wallets activated, their trustlines read in getLedgerEntries calls of 200
//      keys) and paid through the payout queue, which batches them into transactions of up to 100 payments on the
//      distribution wallet's channel accounts; each recipient's envelope is recorded (`submitted`) before it is sent.
//      The pass keeps up to PUSH_CHUNK recipients in flight and takes more as they settle, so the next transactions
//      are ready when channels free up.
//   3. each recipient settles as its transaction confirms: `paid` (its records and wallet.funded, settlement.ts; the
//      recipients of one transaction in one database transaction) or `failed` with a code; a push with nothing open is
//      `completed`.
import type { Knex } from 'knex';
import { DEFAULT_FUNDING_SETTINGS } from '../../config';
import { SYSTEM_ACTOR } from '../audit/auditLog';
import type { Deps } from '../deps';
import { appErrorOf } from '../errors';
import { LEASE_MARGIN_MS } from '../funding/queue';
import { appTreasuryWallets, walletsByDuty } from '../wallets/treasuryWallets';
import { findWallets, type WalletRecord } from '../wallets/store';
import { findApp } from '../apps/store';
import {
  PayoutFailed,
  PayoutQueue,
  payoutWalletsOf,
  type PayoutIntent,
  type PayoutTransaction,
  type PayoutWallets,
} from './payouts';
import { pushes, recipients, type PushRow, type RecipientRow } from './pushes';
import { reconcilePayout, recordPaidPayouts } from './settlement';
import { assetEnabledFor } from './rules';

export type PushRunnerDeps = Pick<Deps, 'db' | 'kms' | 'clock' | 'log' | 'secrets' | 'funding' | 'stellar' | 'jobs'> & {
  payoutQueue?: PayoutQueue;
};

/**
 * Recipients a pass keeps in flight: twice what a ledger holds with the default 10 channel accounts (100 payments
 * each), so the next transactions are ready the moment channels are free again.
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

/** What settling a recipient needs of its push. */
type PushTerms = Pick<PushRow, 'id' | 'app_id' | 'network' | 'name' | 'asset' | 'amount_stroops'>;

/** A recipient whose payment is in a ledger. */
interface PaidRecipient {
  push: PushTerms;
  r: RecipientRow;
  distribution: WalletRecord;
  transaction: PayoutTransaction | undefined;
  hash: string;
  ledger: number;
}

/**
 * queued|submitted -> paid for recipients settling together (a batch's transaction confirms them at once), with their
 * payouts' records and wallet.funded, in one database transaction: a few statements per batch, not per recipient.
 * One already settled (by another pass) is left alone.
 */
async function markPaid(deps: PushRunnerDeps, items: PaidRecipient[]): Promise<void> {
  await deps.db.transaction(async (trx) => {
    const at = deps.clock.now();
    for (const pushId of new Set(items.map((i) => i.push.id))) {
      const group = items.filter((i) => i.push.id === pushId);
      const updated: { position: number }[] = await recipients(trx)
        .where({ push_id: pushId })
        .whereIn(
          'position',
          group.map((i) => i.r.position),
        )
        .whereIn('status', ['queued', 'submitted'])
        .update({ status: 'paid', lease_until: null, failure_code: null, updated_at: at })
        .returning('position');
      const fresh = new Set(updated.map((u) => u.position));
      const settled = group.filter((i) => fresh.has(i.r.position));
      const txIds = await recordPaidPayouts(
        deps,
        trx,
        settled.map(({ push, r, ...paid }) => ({
          appId: push.app_id,
          network: push.network,
          userId: r.user_id!,
          walletId: r.wallet_id!,
          asset: push.asset,
          amountStroops: BigInt(push.amount_stroops),
          label: push.name,
          ...paid,
        })),
      );
      for (const [hash, txId] of txIds) {
        if (!txId) continue;
        await recipients(trx)
          .where({ push_id: pushId })
          .whereIn(
            'position',
            settled.filter((i) => i.hash === hash).map((i) => i.r.position),
          )
          .update({ tx_id: txId, tx_hash: hash });
      }
    }
  });
}

/**
 * Gathers what arrives within `waitMs` and hands it to `flush` in one call; each `add` resolves when its call did. A
 * batch's payments confirm together, so their settlements share one database transaction.
 */
function gathered<T>(flush: (items: T[]) => Promise<void>, waitMs = 20): (item: T) => Promise<void> {
  let waiting: { item: T; resolve: () => void; reject: (err: unknown) => void }[] = [];
  let timer: NodeJS.Timeout | undefined;
  const run = () => {
    timer = undefined;
    const batch = waiting;
    waiting = [];
    flush(batch.map((w) => w.item)).then(
      () => batch.forEach((w) => w.resolve()),
      (err: unknown) => batch.forEach((w) => w.reject(err)),
    );
  };
  return (item) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      timer ??= setTimeout(run, waitMs);
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
        await markPaid(deps, [
          {
            push: row,
            r: row,
            distribution: outcome.distribution,
            transaction: outcome.sent,
            hash: row.tx_hash,
            ledger: outcome.ledger,
          },
        ]);
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

/**
 * Pushes with nothing open left become `completed`. The candidates are locked first and checked again by a statement
 * of its own (a fresh snapshot): a retry (which locks its push before reopening recipients) that commits while this
 * waits for the lock is seen, and its push stays running. A single UPDATE would re-check only the push row after the
 * wait, not the recipients, and complete a push whose recipients were just put back to pending, which no pass takes.
 */
async function completeFinished(db: Knex, now: Date): Promise<void> {
  const openRecipients = (q: Knex.QueryBuilder): void => {
    q.from('distribution_push_recipients as r')
      .whereRaw('r.push_id = distribution_pushes.id')
      .whereIn('r.status', ['pending', 'queued', 'submitted']);
  };
  await db.transaction(async (trx) => {
    const ids = await pushes(trx).where({ status: 'running' }).whereNotExists(openRecipients).forUpdate().pluck('id');
    if (ids.length === 0) return;
    await pushes(trx)
      .whereIn('id', ids)
      .where({ status: 'running' })
      .whereNotExists(openRecipients)
      .update({ status: 'completed', completed_at: now, updated_at: now });
  });
}

/** Step 2: up to `limit` pending recipients of the oldest running push that has any, taken with a lease. */
async function takeChunk(
  deps: PushRunnerDeps,
  now: Date,
  limit: number,
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
      .limit(limit)
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

/**
 * Why none of a chunk can be paid now, if so: the app archived, the asset no longer among its assets (both retryable
 * once put right), or no wallet doing distribution.
 */
async function chunkRefusal(deps: PushRunnerDeps, push: PushRow): Promise<string | PayoutWallets> {
  const app = await findApp(deps.db, push.app_id);
  if (!app || app.status !== 'active') return 'APPLICATION_NOT_FOUND';
  if (!assetEnabledFor(app, push.asset)) return 'DISTRIBUTION_ASSET_NOT_ENABLED';
  try {
    return payoutWalletsOf(
      deps,
      walletsByDuty(await appTreasuryWallets(deps.db, push.app_id, push.network)),
      push.network,
    );
  } catch (err) {
    if (appErrorOf(err)?.code !== 'DISTRIBUTION_NO_DISTRIBUTION_WALLET') throw err;
    return 'DISTRIBUTION_NO_DISTRIBUTION_WALLET';
  }
}

/** A chunk checked and read, ready to send: its payable recipients and what they need. */
interface PreparedChunk {
  push: PushRow;
  wallets: PayoutWallets;
  payable: { r: RecipientRow; wallet: WalletRecord; needsTrustline: boolean }[];
}

/**
 * Step 2's checks and reads for one chunk: recipients that cannot be paid now are settled `failed` (and `settled` is
 * told); undefined when none is left to send. Throws when a read fails: nothing of the chunk was sent then.
 */
async function prepareChunk(
  deps: PushRunnerDeps,
  push: PushRow,
  taken: RecipientRow[],
  settled: () => void,
): Promise<PreparedChunk | undefined> {
  const refusal = await chunkRefusal(deps, push);
  if (typeof refusal === 'string') {
    for (const r of taken) await markFailed(deps, r, refusal).finally(settled);
    return undefined;
  }
  const wallets = refusal;
  const records = new Map(
    (await findWallets(deps.db, [...new Set(taken.flatMap((r) => r.wallet_id ?? []))])).map((w) => [w.id, w]),
  );
  const candidates: { r: RecipientRow; wallet: WalletRecord }[] = [];
  for (const r of taken) {
    const wallet = r.wallet_id ? records.get(r.wallet_id) : undefined;
    if (r.attempts > MAX_ATTEMPTS) await markFailed(deps, r, 'not_sent').finally(settled);
    else if (!wallet || wallet.fundingState !== 'funded')
      await markFailed(deps, r, 'WALLET_NOT_FUNDED').finally(settled);
    else candidates.push({ r, wallet });
  }
  const missing = await missingTrustlines(
    wallets,
    push.asset,
    candidates.map((p) => p.wallet.publicKey),
  );
  return {
    push,
    wallets,
    payable: candidates.map((c) => ({ ...c, needsTrustline: missing.has(c.wallet.publicKey) })),
  };
}

/** Step 3 for a prepared chunk: each recipient through the payout queue, `settled` told as each one ends. */
async function sendChunk(
  deps: PushRunnerDeps,
  chunk: PreparedChunk,
  settlePaid: (paid: PaidRecipient) => Promise<void>,
  settled: () => void,
): Promise<void> {
  const queue = deps.payoutQueue ?? new PayoutQueue(deps, 1);
  await Promise.all(
    chunk.payable.map(async ({ r, wallet, needsTrustline }) => {
      try {
        await payOne(deps, { push: chunk.push, r, wallet, wallets: chunk.wallets, queue, needsTrustline, settlePaid });
      } finally {
        settled();
      }
    }),
  );
}

/** A push's recipients' envelope, recorded before it is sent (one statement per push and batch). */
function pushIntent(deps: Pick<PushRunnerDeps, 'clock'>, pushId: string, position: number): PayoutIntent {
  return {
    group: `push:${pushId}`,
    key: String(position),
    record: async (trx, sent, positions) => {
      const updated = await recipients(trx)
        .where({ push_id: pushId })
        .whereIn('position', positions.map(Number))
        .whereIn('status', ['queued', 'submitted'])
        .update({
          status: 'submitted',
          tx_hash: sent.hash,
          envelope_xdr: sent.envelopeXdr,
          valid_until: sent.validUntil,
          lease_until: null,
          updated_at: deps.clock.now(),
        });
      if (updated !== positions.length) throw new Error(`a recipient of push ${pushId} was settled before sending`);
    },
  };
}

/** One recipient through the payout queue, settled as it ends. */
async function payOne(
  deps: PushRunnerDeps,
  input: {
    push: PushRow;
    r: RecipientRow;
    wallet: WalletRecord;
    wallets: PayoutWallets;
    queue: PayoutQueue;
    needsTrustline: boolean;
    settlePaid: (paid: PaidRecipient) => Promise<void>;
  },
): Promise<void> {
  const { push, r, wallet } = input;
  if (input.needsTrustline && wallet.custody !== 'custodial') {
    // A wallet in the user's own custody signs its own trustline: nothing to send until it has one.
    await markFailed(deps, r, 'op_no_trust');
    return;
  }
  try {
    const applied = await input.queue.pay(input.wallets, {
      id: `${push.id}/${r.position}`,
      wallet,
      asset: push.asset,
      amountStroops: BigInt(push.amount_stroops),
      actor: SYSTEM_ACTOR,
      needsTrustline: input.needsTrustline,
      intent: pushIntent(deps, push.id, r.position),
    });
    await input.settlePaid({
      push,
      r,
      distribution: input.wallets.distribution,
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
    // Not sent (an error before sending), or sent and confirmed but not recorded: the lease lapses and recovery
    // looks again (a recorded envelope is reconciled from the chain, never sent twice).
    deps.log.warn({ err, pushId: push.id, position: r.position }, 'a push payment could not be settled');
  }
}

/** How long one pass keeps taking recipients before it lets the next pass (perhaps in another process) go on. */
const PASS_BUDGET_MS = 60_000;

/**
 * One pass (see the file comment): it keeps up to PUSH_CHUNK recipients in flight, taking PUSH_CHUNK / 4 more each
 * time that many have settled, so the payout queue always has the next transactions ready when channels free up
 * (no gap of a ledger between chunks). 'more' when pending recipients are left for the next pass at once.
 */
export async function runPushPass(deps: PushRunnerDeps): Promise<'more' | 'idle'> {
  const started = Date.now();
  await recover(deps, deps.clock.now());
  const settlePaid = gathered((items: PaidRecipient[]) => markPaid(deps, items));
  const step = PUSH_CHUNK / 4;
  const chunks: Promise<void>[] = [];
  let inFlight = 0;
  let wake: () => void = () => undefined;
  const settled = () => {
    inFlight -= 1;
    wake();
  };
  let tookAll = false;
  try {
    while (!tookAll && Date.now() - started < PASS_BUDGET_MS) {
      if (inFlight > PUSH_CHUNK - step) {
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      const chunk = await takeChunk(deps, deps.clock.now(), step);
      if (!chunk || chunk.taken.length === 0) {
        tookAll = true;
        break;
      }
      inFlight += chunk.taken.length;
      deps.log.info(
        { pushId: chunk.push.id, recipients: chunk.taken.length },
        'paying recipients of a distribution push',
      );
      let unsettled = chunk.taken.length;
      const settledOne = () => {
        unsettled -= 1;
        settled();
      };
      // The chunk's reads finish before the next chunk is taken: a chunk whose reads fail is never taken again in
      // the same pass (its recipients go back to pending for the next one).
      let prepared: PreparedChunk | undefined;
      try {
        prepared = await prepareChunk(deps, chunk.push, chunk.taken, settledOne);
      } catch (err) {
        deps.log.warn({ err, pushId: chunk.push.id }, 'a chunk of a distribution push could not be paid');
        await recipients(deps.db)
          .where({ push_id: chunk.push.id, status: 'queued' })
          .whereIn(
            'position',
            chunk.taken.map((r) => r.position),
          )
          .update({ status: 'pending', lease_until: null, updated_at: deps.clock.now() });
        while (unsettled > 0) settledOne();
        tookAll = true; // no second try in this pass
        break;
      }
      if (prepared) chunks.push(sendChunk(deps, prepared, settlePaid, settledOne));
    }
  } finally {
    await Promise.all(chunks);
    await completeFinished(deps.db, deps.clock.now());
  }
  return tookAll ? 'idle' : 'more';
}
