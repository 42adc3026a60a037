// The ledger follower: reads every ledger's transactions from Stellar RPC (getTransactions) and records those that
// touch a wallet of the service, so a wallet's history also shows what happened outside the service (a payment from
// any Stellar address), and a payment into a wallet emits `payment.received`.
//
// Per network, `ledger_followers.next_ledger` is the first ledger not read yet. The first start begins at the RPC's
// latest ledger (nothing older is back-filled); a position that fell out of the RPC's retention window (the service
// was down longer than the window, 7 days on the real network) restarts at the oldest ledger the RPC still has.
//
// A page covers whole ledgers only and is recorded in one database transaction that also advances `next_ledger`,
// under the row's lock and only if nobody advanced it meanwhile: a page is recorded exactly once, even when a crash
// makes it read again or several service instances follow the same network. Within a page, a payment's event is
// emitted only together with the receiving wallet's new history row, so it cannot be emitted twice either.
//
// For each transaction that involves a wallet of the service (the transaction's source, an operation's source, the
// destination of a payment, path payment or createAccount, a merge destination; destinations of a failed
// transaction received nothing and are left out), unless the service registered it as its own submission before
// sending it (an activation, a trustline backfill: `own_submissions`), which the sending step records itself:
//   - unknown to the service (no row with its hash, nor with it as inner hash): recorded as `external`, with a history
//     row for every involved wallet;
//   - known (the service built or submitted it): a `received` history row is added for each destination wallet that
//     has none yet (the service records only the sender's row when it submits);
//   - each successful payment-like operation into a wallet whose history row this page created: `payment.received`.
//
// Chain data is hostile: text (a memo is 28 arbitrary bytes) is stored in its display form with the raw bytes kept
// (store.ts), and a transaction that still cannot be read or recorded is set aside in `chain_quarantine` with its raw
// XDR and the error (its writes undone to a savepoint), while the rest of the ledger and the next ledgers go on.
import type { Knex } from 'knex';
import type { NetworkName } from '../../config';
import type { Deps } from '../deps';
import type { StellarGateway, TransactionDetails } from '../../infra/stellar/gateway';
import { safeText } from '../text/safeText';
import { recordOutboxEvent } from '../events/outbox';
import { describeChainTransaction, type ChainTransaction } from './chainTransactions';
import { recordFieldsOf } from './describe';
import { stellarTxData } from './stellarTxEvent';
import { addHistory, insertTransaction, ownSubmissionsAmong, type HistoryEntry } from './store';

/** How long the follower waits when it has read every ledger (about a fifth of a 5 s ledger). */
export const DEFAULT_FOLLOWER_INTERVAL_MS = 1000;
/** getTransactions' maximum page. */
export const FOLLOWER_PAGE_SIZE = 200;
/** Past this many ledgers behind the chain the follower logs a warning (about 100 s of ledgers on the real network). */
export const LAG_WARNING_LEDGERS = 20;
/** The lag warning repeats at most this often while the follower stays behind. */
const LAG_WARNING_EVERY_MS = 60_000;

export type FollowerDeps = Pick<Deps, 'db' | 'log' | 'clock' | 'stellar' | 'jobs'>;

/** What the follower keeps between steps on one network: the RPC's latest ledger as last seen. */
export interface FollowerState {
  latestLedger?: number;
  /** When the lag warning was last logged (ms since the epoch). */
  lagWarnedAt?: number;
}

type WalletRow = { id: string; app_id: string; public_key: string };

/** JSON-RPC -32600: the start ledger is outside the RPC's retention window. */
function isOutOfRange(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === -32600;
}

/** A `ledger_followers` row: the next ledger to read on a network. */
interface FollowerRow {
  network: NetworkName;
  next_ledger: number;
  updated_at: Date;
}

/** Where the follower is on the network; the first time, the RPC's latest ledger. */
async function nextLedger(deps: FollowerDeps, gateway: StellarGateway): Promise<number> {
  const row = await deps.db<FollowerRow>('ledger_followers').where({ network: gateway.network }).first('next_ledger');
  if (row) return row.next_ledger;
  const latest = (await gateway.ledgerFigures()).sequence;
  await deps
    .db<FollowerRow>('ledger_followers')
    .insert({ network: gateway.network, next_ledger: latest, updated_at: deps.clock.now() })
    .onConflict('network')
    .ignore();
  deps.log.info({ network: gateway.network, ledger: latest }, 'ledger follower starts at the latest ledger');
  const position = await deps
    .db<FollowerRow>('ledger_followers')
    .where({ network: gateway.network })
    .first('next_ledger');
  if (!position) throw new Error(`ledger_followers has no row for ${gateway.network} after inserting it`);
  return position.next_ledger;
}

/** Moves the position from `from` to `to` unless another follower moved it first. */
async function moveTo(trx: Knex, network: NetworkName, from: number, to: number, at: Date): Promise<boolean> {
  return (
    (await trx<FollowerRow>('ledger_followers')
      .where({ network, next_ledger: from })
      .update({ next_ledger: to, updated_at: at })) === 1
  );
}

/**
 * The transactions of whole ledgers from `next` on, and the first ledger after them. A full page may end inside a
 * ledger: that ledger is left for the next step, unless it is the page's only ledger (more than a page of
 * transactions in one ledger), which is then read to its end by cursor.
 */
async function readLedgers(
  gateway: StellarGateway,
  next: number,
  pageSize: number,
): Promise<{ transactions: TransactionDetails[]; to: number; latestLedger: number }> {
  const page = await gateway.transactionsFrom({ startLedger: next, limit: pageSize });
  const txs = page.transactions;
  // A short page walked every ledger up to the latest.
  if (txs.length < pageSize) return { transactions: txs, to: page.latestLedger + 1, latestLedger: page.latestLedger };
  const last = txs.at(-1)!.ledger;
  if (txs[0]!.ledger < last)
    return { transactions: txs.filter((t) => t.ledger < last), to: last, latestLedger: page.latestLedger };
  const all = [...txs];
  for (let cursor = page.cursor; ;) {
    const more = await gateway.transactionsFrom({ cursor, limit: pageSize });
    all.push(...more.transactions.filter((t) => t.ledger === last));
    if (more.transactions.length < pageSize || more.transactions.some((t) => t.ledger !== last)) break;
    cursor = more.cursor;
  }
  return { transactions: all, to: last + 1, latestLedger: page.latestLedger };
}

/** The service's wallets a transaction involves, in order: its sources first (the first names the app), then destinations. */
function involvedWallets(tx: ChainTransaction, byKey: Map<string, WalletRow>): WalletRow[] {
  const destinations = tx.details.status === 'SUCCESS' ? [...tx.destinations] : [];
  const keys = [...new Set([...tx.sources, ...destinations])];
  return keys.flatMap((k) => (byKey.has(k) ? [byKey.get(k)!] : []));
}

/**
 * Records the involved transactions of ledgers [from, to) and moves the position to `to`, in one database transaction.
 * False (nothing written) when another follower moved the position meanwhile.
 */
async function recordLedgers(
  deps: FollowerDeps,
  gateway: StellarGateway,
  range: { from: number; to: number },
  transactions: TransactionDetails[],
): Promise<boolean> {
  const network = gateway.network;
  const unreadable: { details: TransactionDetails; error: string }[] = [];
  const chain = transactions.flatMap((details) => {
    let tx: ChainTransaction | undefined;
    try {
      tx = describeChainTransaction(details, gateway.networkPassphrase);
    } catch (err) {
      unreadable.push({ details, error: `could not describe: ${errorText(err)}` });
      return [];
    }
    if (!tx) unreadable.push({ details, error: 'could not read the transaction envelope' });
    return tx ? [tx] : [];
  });
  const accounts = [...new Set(chain.flatMap((tx) => [...tx.sources, ...tx.destinations]))];
  const now = deps.clock.now();
  return deps.db.transaction(async (trx) => {
    const position = await trx<FollowerRow>('ledger_followers').where({ network }).forUpdate().first('next_ledger');
    if (!position || position.next_ledger !== range.from) return false;
    for (const { details, error } of unreadable) await quarantine(deps, trx, network, details, error);
    // One query per page for the wallets, one for the transactions already known, one for their history rows.
    const wallets: WalletRow[] = accounts.length
      ? await trx('wallets')
          .where({ network })
          .whereRaw('public_key = any(?::text[])', [accounts])
          .select('id', 'app_id', 'public_key')
      : [];
    const byKey = new Map(wallets.map((w) => [w.public_key, w]));
    const involved = chain
      .map((tx) => ({ tx, wallets: involvedWallets(tx, byKey) }))
      .filter((i) => i.wallets.length > 0);
    const hashes = [...new Set(involved.flatMap(({ tx }) => (tx.innerHash ? [tx.hash, tx.innerHash] : [tx.hash])))];
    const known: { id: string; hash: string; inner_hash: string | null }[] = hashes.length
      ? await trx('transactions')
          .where({ network })
          .andWhere((w) =>
            w.whereRaw('hash = any(?::text[])', [hashes]).orWhereRaw('inner_hash = any(?::text[])', [hashes]),
          )
          .select('id', 'hash', 'inner_hash')
      : [];
    const rows: { transaction_id: string; wallet_id: string }[] = known.length
      ? await trx('tx_history')
          .whereIn(
            'transaction_id',
            known.map((k) => k.id),
          )
          .whereIn(
            'wallet_id',
            wallets.map((w) => w.id),
          )
          .select('transaction_id', 'wallet_id')
      : [];
    const hasRow = new Set(rows.map((r) => `${r.transaction_id}/${r.wallet_id}`));
    // The service's own activations and trustline backfills are recorded by the step that sent them, perhaps after
    // this page: never as outside transactions, and without payment.received events.
    const own = await ownSubmissionsAmong(trx, network, hashes);
    const knownId = (tx: ChainTransaction) => {
      const ids = new Set([tx.hash, ...(tx.innerHash ? [tx.innerHash] : [])]);
      return known.find((k) => ids.has(k.hash) || (k.inner_hash !== null && ids.has(k.inner_hash)))?.id;
    };

    for (const { tx, wallets: its } of involved) {
      // One transaction that cannot be recorded is set aside (its writes undone to a savepoint), the rest go on.
      try {
        await trx.transaction((item) => recordOne(item, tx, its));
      } catch (err) {
        await quarantine(deps, trx, network, tx.details, `could not record: ${errorText(err)}`);
      }
    }
    return moveTo(trx, network, range.from, range.to, now);

    async function recordOne(trx: Knex.Transaction, tx: ChainTransaction, its: WalletRow[]): Promise<void> {
      const at = new Date(tx.details.createdAt * 1000);
      const entry = (w: WalletRow): HistoryEntry => {
        const view = tx.viewOf(w.public_key)!;
        return { walletId: w.id, direction: view.direction, summary: view.summary };
      };
      let created: string[];
      const id = knownId(tx);
      const stellarTx = async () => {
        for (const appId of new Set(its.map((w) => w.app_id)))
          await recordOutboxEvent(deps, trx, {
            appId,
            type: 'stellar.tx',
            data: stellarTxData(tx.details, network, tx.inner),
            at: now,
          });
      };
      if (own.has(tx.hash) || (tx.innerHash !== null && own.has(tx.innerHash))) {
        // The service's own activation or trustline backfill: reported here, where its result is read (once: a page
        // is recorded once), while its rows are the sending step's.
        await stellarTx();
        if (id === undefined) return;
      }
      if (id === undefined) {
        const d = tx.description;
        const source = byKey.get(d.sourceAccount);
        const inserted = await insertTransaction(
          trx,
          {
            appId: its[0]!.app_id,
            network,
            walletId: source?.id ?? null,
            userId: null,
            origin: 'external',
            status: tx.details.status,
            stage: tx.details.status === 'SUCCESS' ? 'confirmed' : 'failed',
            ...recordFieldsOf(d),
            summary: d.summaryFor(d.sourceAccount).text,
            summaryTitle: d.title,
            summaryLines: d.lines,
            ...(tx.innerHash ? { innerHash: tx.innerHash } : {}),
            hash: tx.hash,
            envelopeXdr: tx.details.envelopeXdr,
            feeStroops: tx.details.feeChargedStroops,
            feeSource: tx.feeSource,
            resultCode: tx.resultCode,
            ledger: tx.details.ledger,
            confirmedAt: at,
            at,
          },
          its.map(entry),
        );
        // Under the position's lock only the service's own submissions can race this insert, and those are recorded
        // before they are submitted: a conflict here is not expected, and then nothing is added.
        created = inserted ? its.map((w) => w.id) : [];
        // A transaction of the apps' wallets made outside the service: `stellar.tx` once for each app it involves.
        if (inserted) await stellarTx();
      } else {
        // The service's own transaction: the sender's row is the service's; add each recipient's.
        const recipients = its.filter(
          (w) => tx.destinations.has(w.public_key) && !tx.sources.has(w.public_key) && !hasRow.has(`${id}/${w.id}`),
        );
        await addHistory(trx, id, recipients.map(entry), at);
        created = recipients.map((w) => w.id);
      }
      if (tx.details.status !== 'SUCCESS') return;
      for (const p of tx.description.payments) {
        const to = byKey.get(p.to);
        if (!to || !created.includes(to.id) || p.from === p.to || p.amount === '0') continue;
        await recordOutboxEvent(deps, trx, {
          appId: to.app_id,
          type: 'payment.received',
          data: {
            txHash: tx.hash,
            toWalletId: to.id,
            from: p.from,
            to: p.to,
            asset: p.asset,
            amount: p.amount,
            ledger: tx.details.ledger,
          },
          at: now,
        });
      }
    }
  });
}

/** What failed, short: a database error's own message without the statement knex puts before it. */
function errorText(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const at = message.lastIndexOf(' - ');
  return (at >= 0 && /^(with|insert|update|select|delete) /.test(message) ? message.slice(at + 3) : message).slice(
    0,
    500,
  );
}

/** Keeps a chain transaction the follower could not record, with its raw XDR and why, and says so in the log. */
async function quarantine(
  deps: FollowerDeps,
  trx: Knex.Transaction,
  network: NetworkName,
  details: TransactionDetails,
  error: string,
): Promise<void> {
  deps.log.warn(
    { network, hash: details.hash, ledger: details.ledger, error },
    'ledger follower set a transaction aside (chain_quarantine); going on',
  );
  await trx('chain_quarantine')
    .insert({
      network,
      ledger: details.ledger,
      hash: details.hash,
      envelope_xdr: details.envelopeXdr ?? null,
      result_xdr: details.resultXdr ?? null,
      error: safeText(error),
      created_at: deps.clock.now(),
    })
    .onConflict(['network', 'hash'])
    .ignore();
}

/**
 * One step on one network: reads the next whole ledgers (up to a page of transactions) and records them. 'behind'
 * when more ledgers are already waiting, 'caught-up' when the follower has read up to the RPC's latest ledger.
 */
export async function followStep(
  deps: FollowerDeps,
  gateway: StellarGateway,
  state: FollowerState = {},
  pageSize: number = FOLLOWER_PAGE_SIZE,
): Promise<'behind' | 'caught-up'> {
  const next = await nextLedger(deps, gateway);
  // Ask the RPC how far the chain is only when the last answer said there was nothing more (getHealth is cheap).
  if (state.latestLedger === undefined || next > state.latestLedger) {
    const health = await gateway.health();
    if (!health.healthy || health.latestLedger === undefined) {
      deps.log.debug(
        { network: gateway.network, detail: health.detail },
        'ledger follower: the RPC is not healthy; waiting',
      );
      return 'caught-up';
    }
    state.latestLedger = health.latestLedger;
    if (next > state.latestLedger) return 'caught-up';
  }
  let read;
  try {
    read = await readLedgers(gateway, next, pageSize);
  } catch (err) {
    if (!isOutOfRange(err)) throw err;
    // Not after the latest ledger (checked above), so before the oldest one the RPC keeps: restart there.
    const window = await gateway.transactionsFrom({ startLedger: state.latestLedger, limit: 1 });
    state.latestLedger = window.latestLedger;
    if (next >= window.oldestLedger) throw err;
    deps.log.warn(
      { network: gateway.network, from: next, to: window.oldestLedger },
      'ledger follower fell out of the RPC retention window: ledgers before its oldest ledger are skipped',
    );
    await moveTo(deps.db, gateway.network, next, window.oldestLedger, deps.clock.now());
    return 'behind';
  }
  await recordLedgers(deps, gateway, { from: next, to: read.to }, read.transactions);
  state.latestLedger = read.latestLedger;
  return read.to <= read.latestLedger ? 'behind' : 'caught-up';
}

/**
 * How many ledgers the follower of `network` is behind `latestLedger` (the chain's, from the RPC); undefined when it has
 * never run on that network.
 */
export async function followerLag(db: Knex, network: NetworkName, latestLedger: number): Promise<number | undefined> {
  const row = await db<FollowerRow>('ledger_followers').where({ network }).first('next_ledger');
  return row ? Math.max(0, latestLedger - row.next_ledger + 1) : undefined;
}

/**
 * One pass on one network, as the ledger-follower job runs it: steps until caught up with the RPC's latest ledger or
 * until `budgetMs` has passed ('behind': the job runs again at once), warning (at most once a minute) while the
 * follower is more than `lagWarningLedgers` behind. A failed step throws; the job retries with back-off.
 */
export async function followNetwork(
  deps: FollowerDeps,
  gateway: StellarGateway,
  state: FollowerState,
  opts: { pageSize?: number; budgetMs: number; lagWarningLedgers?: number },
): Promise<'behind' | 'caught-up'> {
  const pageSize = Math.min(opts.pageSize ?? FOLLOWER_PAGE_SIZE, FOLLOWER_PAGE_SIZE);
  const until = Date.now() + opts.budgetMs;
  try {
    for (;;) {
      const step = await followStep(deps, gateway, state, pageSize);
      const lag =
        state.latestLedger === undefined ? undefined : await followerLag(deps.db, gateway.network, state.latestLedger);
      if (
        lag !== undefined &&
        lag > (opts.lagWarningLedgers ?? LAG_WARNING_LEDGERS) &&
        Date.now() - (state.lagWarnedAt ?? 0) > LAG_WARNING_EVERY_MS
      ) {
        state.lagWarnedAt = Date.now();
        deps.log.warn({ network: gateway.network, lagLedgers: lag }, 'ledger follower is behind the chain');
      }
      if (step === 'caught-up') return 'caught-up';
      if (Date.now() >= until) return 'behind';
    }
  } catch (err) {
    state.latestLedger = undefined;
    throw err;
  }
}
