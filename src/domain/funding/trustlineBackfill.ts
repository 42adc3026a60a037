// Trustlines for assets enabled after wallets were funded. An activation trusts the assets configured at that moment
// (activation.ts); when an app's settings later gain an asset, each of its funded user wallets gets the line through
// a sponsored transaction from the funding wallet, per wallet:
//   beginSponsoringFutureReserves(wallet)   source: the funding wallet
//   changeTrust(asset) per added asset      source: the wallet; each line's 0.5 XLM reserve goes to the sponsor
//   endSponsoringFutureReserves             source: the wallet
// several wallets per transaction (at most 100 operations), signed by the funding wallet and each wallet, wrapped in
// a fee-bump paid by the app's gas wallet (every key decryption audited). The PATCH only records the work
// (`trustline_backfills`, one row per wallet and asset, in the transaction of the settings change, the app row locked
// first so that concurrent changes each count what they add against what they replace; an activation built with the
// older list records its own rows when it is marked funded, fundingStore.ts); a loop like the activation recovery's
// does it in the background, so a restart resumes it. A failure is recorded on the rows and retried with backoff:
// INSUFFICIENT_FUNDS_FOR_TRUSTLINE when the funding wallet cannot cover the reserves or the gas wallet the fee,
// TRUSTLINE_FAILED for anything else. A changeTrust that is applied twice only sets the same limit again, so a resent
// or rebuilt transaction cannot do harm; a line already on the ledger (sponsored by activation, or by an attempt
// whose outcome was lost) is recorded without sending anything. Removing an asset never removes trustlines: a row
// whose asset was removed before it was done is dropped.
import { Account, Operation, TransactionBuilder, type Transaction, type xdr } from '@stellar/stellar-sdk';
import type { Knex } from 'knex';
import { registerOwnSubmission } from '../transactions/store';
import { DEFAULT_FUNDING_SETTINGS } from '../../config';
import type { Deps } from '../deps';
import { fromStroops } from '../money/amounts';
import { StellarUnavailableError, TransactionRejectedError } from '../../infra/stellar/errors';
import { availableStroops, parseAsset, type StellarGateway } from '../../infra/stellar/gateway';
import { SYSTEM_ACTOR } from '../audit/auditLog';
import { findApp, type App } from '../apps/store';
import { sponsorFee } from '../transactions/feeBump';
import { appWalletFor } from '../wallets/treasuryWallets';
import { MAX_OPERATIONS_PER_TRANSACTION } from './activation';
import { withWalletKeypair } from '../wallets/custody';
import { gatewayFor } from '../chain/gateways';
import { recordOutboxEvent } from '../events/outbox';
import { LEASE_MARGIN_MS } from './queue';
import { findWallet, type WalletRecord } from '../wallets/store';

export type BackfillDeps = Pick<Deps, 'db' | 'kms' | 'clock' | 'log' | 'stellar' | 'funding' | 'jobs'>;

/** A transaction carries at most 20 signatures: one per wallet and the funding wallet's. */
const MAX_WALLETS_PER_TRANSACTION = 20 - 1;
/** Rows a pass leases at once (across apps). */
const BATCH = 100;
const MAX_RETRY_DELAY_MS = 15 * 60_000;

interface BackfillRow {
  walletId: string;
  asset: string;
  appId: string;
  attempts: number;
  txHash: string | null;
}

/** One funded wallet and the lines it still lacks. */
interface Pending {
  wallet: WalletRecord;
  rows: BackfillRow[];
}

type FailureCode = 'INSUFFICIENT_FUNDS_FOR_TRUSTLINE' | 'TRUSTLINE_FAILED';

class Failure extends Error {
  constructor(
    readonly code: FailureCode,
    message: string,
    /** No retry before this time (an envelope that may still apply). */
    readonly notBefore?: Date,
  ) {
    super(`${code}: ${message}`);
    this.name = 'TrustlineBackfillFailure';
  }
}

function settings(deps: BackfillDeps) {
  return deps.funding ?? DEFAULT_FUNDING_SETTINGS;
}

// ---------------------------------------------------------------------------------------------------------------
// Storage

/**
 * The app's assets as committed, its row locked for update until `trx` ends (undefined: no such app). A settings
 * change reads them so before it writes: concurrent changes then run one after the other, and what each adds is
 * counted against what it actually replaces, not against a read from before another change committed (which would
 * miss an asset that change removed and this one brings back).
 */
export async function lockAppAssets(trx: Knex.Transaction, appId: string): Promise<string[] | undefined> {
  const row = await trx<{ id: string; assets: string[] | null }>('apps')
    .where({ id: appId })
    .forUpdate()
    .first('assets');
  return row ? (row.assets ?? []) : undefined;
}

/**
 * Records the lines owed for `assets` newly enabled on the app: one row per asset and user wallet of the app's
 * network that is funded or being activated (an activation may have been built with the old list; if it did take the
 * asset, the row finds the line on the ledger). Call in the transaction of the settings change.
 */
export async function enqueueTrustlineBackfill(
  trx: Knex,
  input: { app: App; assets: string[]; at: Date },
): Promise<void> {
  if (input.assets.length === 0) return;
  await trx.raw(
    `insert into trustline_backfills (wallet_id, asset, app_id, next_attempt_at, created_at, updated_at)
     select w.id, a.asset, w.app_id, :at, :at, :at
       from wallets w cross join unnest(:assets::text[]) as a(asset)
      where w.app_id = :appId and w.network = :network and w.user_id is not null and w.funding_state in ('funded', 'activating')
        and w.custody = 'custodial'
     on conflict (wallet_id, asset) do nothing`,
    { at: input.at, assets: input.assets, appId: input.app.id, network: input.app.network },
  );
}

/** Leases the due pending rows to the caller; SKIP LOCKED lets several instances scan at once. */
async function leaseDue(db: Knex, input: { now: Date; leaseUntil: Date }): Promise<BackfillRow[]> {
  const rows = await db.transaction(async (trx) => {
    const due = await trx('trustline_backfills')
      .where({ status: 'pending' })
      .where('next_attempt_at', '<=', input.now)
      .where((q) => q.whereNull('lease_until').orWhere('lease_until', '<=', input.now))
      .orderBy('next_attempt_at')
      .limit(BATCH)
      .forUpdate()
      .skipLocked()
      .select<{ wallet_id: string; asset: string }[]>('wallet_id', 'asset');
    if (due.length === 0) return [];
    return trx('trustline_backfills')
      .whereIn(
        ['wallet_id', 'asset'],
        due.map((r) => [r.wallet_id, r.asset]),
      )
      .update({ lease_until: input.leaseUntil, updated_at: input.now })
      .returning<{ wallet_id: string; asset: string; app_id: string; attempts: number; tx_hash: string | null }[]>('*');
  });
  return rows.map((r) => ({
    walletId: r.wallet_id,
    asset: r.asset,
    appId: r.app_id,
    attempts: r.attempts,
    txHash: r.tx_hash,
  }));
}

const keysOf = (rows: BackfillRow[]) => rows.map((r) => [r.walletId, r.asset]);

async function dropRows(db: Knex, rows: BackfillRow[]): Promise<void> {
  if (rows.length) await db('trustline_backfills').whereIn(['wallet_id', 'asset'], keysOf(rows)).del();
}

async function recordSent(db: Knex, rows: BackfillRow[], txHash: string, at: Date): Promise<void> {
  await db('trustline_backfills')
    .whereIn(['wallet_id', 'asset'], keysOf(rows))
    .update({ tx_hash: txHash, attempts: db.raw('attempts + 1'), updated_at: at });
}

async function retryLater(db: Knex, rows: BackfillRow[], error: string | null, next: Date, at: Date): Promise<void> {
  if (rows.length)
    await db('trustline_backfills')
      .whereIn(['wallet_id', 'asset'], keysOf(rows))
      .update({ last_error: error, next_attempt_at: next, lease_until: null, updated_at: at });
}

/** pending -> added with one `trustline.added` event per line, in one transaction. `withEvents`: the lines we added. */
async function markAdded(
  deps: Pick<Deps, 'db' | 'jobs'>,
  input: { rows: BackfillRow[]; withEvents: BackfillRow[]; txHash: string | null; ledger: number | null; at: Date },
): Promise<void> {
  await deps.db.transaction(async (trx) => {
    for (const row of input.rows) {
      const moved = await trx('trustline_backfills')
        .where({ wallet_id: row.walletId, asset: row.asset, status: 'pending' })
        .update({
          status: 'added',
          ledger: input.ledger,
          tx_hash: input.txHash ?? trx.raw('tx_hash'),
          last_error: null,
          lease_until: null,
          updated_at: input.at,
        });
      if (moved && input.withEvents.includes(row)) {
        await recordOutboxEvent(deps, trx, {
          appId: row.appId,
          type: 'trustline.added',
          data: { walletId: row.walletId, asset: row.asset },
          at: input.at,
        });
      }
    }
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Chain

function isShortfall(err: TransactionRejectedError): boolean {
  return (
    err.codes.transaction === 'tx_insufficient_balance' ||
    err.codes.operations.some((c) => c === 'op_low_reserve' || c === 'op_underfunded')
  );
}

function operationsFor(p: Pending, sponsor: string): xdr.Operation[] {
  const wallet = p.wallet.publicKey;
  return [
    Operation.beginSponsoringFutureReserves({ sponsoredId: wallet, source: sponsor }),
    ...p.rows.map((r) => Operation.changeTrust({ asset: parseAsset(r.asset), source: wallet })),
    Operation.endSponsoringFutureReserves({ source: wallet }),
  ];
}

/** Splits the wallets into transactions of at most 100 operations and 20 signatures (a wallet's lines never span two). */
function chunks(pending: Pending[]): Pending[][] {
  const out: Pending[][] = [];
  let current: Pending[] = [];
  let ops = 0;
  for (const p of pending) {
    const n = p.rows.length + 2;
    if (
      (ops + n > MAX_OPERATIONS_PER_TRANSACTION || current.length === MAX_WALLETS_PER_TRANSACTION) &&
      current.length
    ) {
      out.push(current);
      current = [];
      ops = 0;
    }
    current.push(p);
    ops += n;
  }
  if (current.length) out.push(current);
  return out;
}

async function sign(deps: BackfillDeps, tx: Transaction, keys: { walletId: string; purpose: string }[]): Promise<void> {
  for (const key of keys) await withWalletKeypair(deps, { ...key, actor: SYSTEM_ACTOR }, (keypair) => tx.sign(keypair));
}

/**
 * One transaction for some wallets' missing lines: checked, signed, wrapped in the gas wallet's fee-bump, recorded,
 * sent and confirmed, or a Failure.
 */
async function addLines(
  deps: BackfillDeps,
  gw: StellarGateway,
  sponsor: WalletRecord,
  gas: WalletRecord,
  pending: Pending[],
): Promise<void> {
  const rows = pending.flatMap((p) => p.rows);
  const sameWallet = gas.publicKey === sponsor.publicKey;
  const [figures, sponsorAccount, gasAccount] = await Promise.all([
    gw.ledgerFigures(),
    gw.loadAccount(sponsor.publicKey),
    sameWallet ? Promise.resolve(undefined) : gw.loadAccount(gas.publicKey),
  ]);
  const operations = pending.flatMap((p) => operationsFor(p, sponsor.publicKey));
  const reserves = BigInt(rows.length) * figures.baseReserveStroops;
  // The fee-bump's: one operation more than the inner transaction, at the base fee.
  const fee = BigInt((operations.length + 1) * figures.baseFeeStroops);
  if (!sponsorAccount || availableStroops(sponsorAccount, figures.baseReserveStroops) < reserves) {
    throw new Failure(
      'INSUFFICIENT_FUNDS_FOR_TRUSTLINE',
      `the funding wallet cannot cover ${rows.length} trustline reserve(s) of 0.5 XLM`,
    );
  }
  const payer = sameWallet ? sponsorAccount : gasAccount;
  if (!payer || availableStroops(payer, figures.baseReserveStroops) < fee + (sameWallet ? reserves : 0n)) {
    throw new Failure(
      'INSUFFICIENT_FUNDS_FOR_TRUSTLINE',
      `the gas wallet ${gas.publicKey} cannot cover the fee of ${fromStroops(fee)} XLM`,
    );
  }
  const validUntil = figures.closeTime + settings(deps).activationTimeoutSeconds;
  const builder = new TransactionBuilder(new Account(sponsor.publicKey, sponsorAccount.sequence), {
    fee: String(figures.baseFeeStroops),
    networkPassphrase: gw.networkPassphrase,
    timebounds: { minTime: 0, maxTime: validUntil },
  });
  for (const op of operations) builder.addOperation(op);
  const tx = builder.build();
  await sign(deps, tx, [
    { walletId: sponsor.id, purpose: 'trustline.sponsor' },
    ...pending.map((p) => ({ walletId: p.wallet.id, purpose: 'trustline.add' })),
  ]);
  const bump = await sponsorFee(deps, {
    gasWallet: gas,
    inner: tx,
    networkPassphrase: gw.networkPassphrase,
    actor: SYSTEM_ACTOR,
  });
  const txHash = Buffer.from(bump.hash()).toString('hex');
  await deps.db.transaction(async (trx) => {
    // Before it is sent: the ledger follower leaves the service's own transaction to this step.
    await registerOwnSubmission(trx, {
      network: gw.network,
      hashes: [txHash, Buffer.from(tx.hash()).toString('hex')],
      at: deps.clock.now(),
    });
    await recordSent(trx, rows, txHash, deps.clock.now());
  });
  try {
    const { ledger } = await gw.submitAndConfirm(bump);
    await markAdded(deps, { rows, withEvents: rows, txHash, ledger, at: deps.clock.now() });
  } catch (err) {
    if (err instanceof TransactionRejectedError) {
      throw new Failure(isShortfall(err) ? 'INSUFFICIENT_FUNDS_FOR_TRUSTLINE' : 'TRUSTLINE_FAILED', err.message);
    }
    // Unknown outcome: not before the envelope's time bound has passed (the next attempt looks at the ledger first).
    throw new Failure(
      'TRUSTLINE_FAILED',
      err instanceof Error ? err.message : String(err),
      new Date(validUntil * 1000 + LEASE_MARGIN_MS),
    );
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The loop

function retryDelayMs(deps: BackfillDeps, attempts: number): number {
  return Math.min(MAX_RETRY_DELAY_MS, settings(deps).retryIntervalSeconds * 1000 * 2 ** Math.min(attempts, 10));
}

async function failed(deps: BackfillDeps, app: App, rows: BackfillRow[], err: unknown): Promise<void> {
  const failure =
    err instanceof Failure ? err : new Failure('TRUSTLINE_FAILED', err instanceof Error ? err.message : String(err));
  const now = deps.clock.now();
  const attempts = Math.max(0, ...rows.map((r) => r.attempts));
  const next = new Date(Math.max(now.getTime() + retryDelayMs(deps, attempts), failure.notBefore?.getTime() ?? 0));
  deps.log.warn(
    { appId: app.id, code: failure.code, err: failure, wallets: new Set(rows.map((r) => r.walletId)).size },
    'trustlines for a newly enabled asset not added; retried later',
  );
  await retryLater(deps.db, rows, failure.message, next, now);
}

/** The leased rows of one app: sorted out against the wallets and the ledger, then the missing lines added. */
async function backfillApp(deps: BackfillDeps, app: App, rows: BackfillRow[]): Promise<void> {
  const now = deps.clock.now();
  const byWallet = new Map<string, BackfillRow[]>();
  for (const row of rows) byWallet.set(row.walletId, [...(byWallet.get(row.walletId) ?? []), row]);
  const gw = gatewayFor(deps, app.network);
  const [sponsor, gas] = await Promise.all([
    appWalletFor(deps.db, app.id, app.network, 'funding'),
    appWalletFor(deps.db, app.id, app.network, 'gas'),
  ]);
  const pending: Pending[] = [];
  for (const [walletId, walletRows] of byWallet) {
    const wallet = await findWallet(deps.db, walletId);
    // An unfunded wallet's activation will trust the assets configured then; a removed asset is no longer owed.
    const owed = walletRows.filter((r) => app.assets.includes(r.asset));
    if (!wallet || wallet.fundingState === 'unfunded') {
      await dropRows(deps.db, walletRows);
      continue;
    }
    await dropRows(
      deps.db,
      walletRows.filter((r) => !owed.includes(r)),
    );
    if (wallet.fundingState === 'activating') {
      await retryLater(deps.db, owed, null, new Date(now.getTime() + settings(deps).retryIntervalSeconds * 1000), now);
      continue;
    }
    const onLedger = new Set(
      (
        await gw.trustlines(
          wallet.publicKey,
          owed.map((r) => r.asset),
        )
      ).map((l) => l.asset),
    );
    const present = owed.filter((r) => onLedger.has(r.asset));
    // A line on the ledger with a sent attempt of ours is ours (its outcome was lost); else activation added it.
    await markAdded(deps, {
      rows: present,
      withEvents: present.filter((r) => r.txHash !== null),
      txHash: null,
      ledger: null,
      at: now,
    });
    const missing = owed.filter((r) => !onLedger.has(r.asset));
    if (missing.length) pending.push({ wallet, rows: missing });
  }
  for (const chunk of chunks(pending)) {
    const chunkRows = chunk.flatMap((p) => p.rows);
    try {
      if (!sponsor) throw new Failure('INSUFFICIENT_FUNDS_FOR_TRUSTLINE', 'the app has no funding wallet');
      if (!gas) throw new Failure('INSUFFICIENT_FUNDS_FOR_TRUSTLINE', 'the app has no gas wallet');
      await addLines(deps, gw, sponsor, gas, chunk);
      deps.log.info({ appId: app.id, lines: chunkRows.length }, 'trustlines added for newly enabled assets');
    } catch (err) {
      await failed(deps, app, chunkRows, err);
    }
  }
}

/**
 * One pass: leases the due rows and works through them, apps in parallel, each app's transactions in turn (they share
 * the funding wallet's sequence). Returns how many rows it took on.
 */
export async function runTrustlineBackfill(deps: BackfillDeps): Promise<number> {
  const now = deps.clock.now();
  const leaseUntil = new Date(now.getTime() + settings(deps).activationTimeoutSeconds * 1000 + LEASE_MARGIN_MS);
  const due = await leaseDue(deps.db, { now, leaseUntil });
  const byApp = new Map<string, BackfillRow[]>();
  for (const row of due) byApp.set(row.appId, [...(byApp.get(row.appId) ?? []), row]);
  await Promise.all(
    [...byApp].map(async ([appId, rows]) => {
      const app = await findApp(deps.db, appId);
      if (!app) return;
      try {
        await backfillApp(deps, app, rows);
      } catch (err) {
        // Chain reads failed before anything was sent (or no RPC is configured): the leases run out, retried then.
        deps.log.warn(
          { err: err instanceof StellarUnavailableError ? err.message : err, appId },
          'trustline backfill pass failed for an app',
        );
      }
    }),
  );
  return due.length;
}

/** How often the trustline backfill pass runs (FUNDING_RETRY_SECONDS). */
export function trustlineBackfillIntervalMs(deps: BackfillDeps): number {
  return settings(deps).retryIntervalSeconds * 1000;
}
