// The Dashboard's metrics of an app over a window (getAppMetrics): what it cost and how it went, from the database.
// At a million transactions per app the window's transactions are read once, from one covering index (migration
// 0023), grouped by the series' bucket; the totals are the sum of the buckets. Failures by code, active users,
// wallets and webhook outcomes are each one indexed range query; the locked reserve is the funding ledger's sum.
import type { Knex } from 'knex';
import { AppError } from '../errors';
import { lockedReserveStroops } from '../funding/store';
import { fromStroops } from '../money/amounts';
import { feePayersOf, SPONSORED_FEE_CONDITION } from '../transactions/appTransactions';

export const DEFAULT_WINDOW_DAYS = 30;
export const MAX_WINDOW_DAYS = 366;
/** Windows up to this long get hourly buckets; longer ones daily buckets (UTC). */
export const HOURLY_UP_TO_MS = 48 * 3600_000;
const DAY_MS = 86_400_000;
const FAILURE_CODES_SHOWN = 50;

export type Interval = 'hour' | 'day';

export interface MetricsBucket {
  start: string;
  transactions: number;
  failed: number;
  walletsCreated: number;
  sponsoredFeesXlm: string;
}

export interface AppMetrics {
  from: string;
  to: string;
  wallets: { created: number; funded: number };
  transactions: { total: number; success: number; failed: number; pending: number };
  sponsoredFeesXlm: string;
  lockedReserveXlm: string;
  failuresByCode: { code: string; count: number }[];
  activeUsers: number;
  webhooks: { delivered: number; failed: number; pending: number; successRate: number | null };
  interval: Interval;
  series: MetricsBucket[];
}

/** The window as applied: defaults, then `from` before `to` and at most 366 days (VALIDATION_ERROR otherwise). */
export function metricsWindow(input: { from?: string; to?: string }, now: Date): { from: Date; to: Date } {
  const to = input.to !== undefined ? new Date(input.to) : now;
  const from = input.from !== undefined ? new Date(input.from) : new Date(to.getTime() - DEFAULT_WINDOW_DAYS * DAY_MS);
  const fieldErrors: Record<string, string[]> = {};
  if (from.getTime() >= to.getTime()) fieldErrors['query.from'] = ['must be before to'];
  else if (to.getTime() - from.getTime() > MAX_WINDOW_DAYS * DAY_MS)
    fieldErrors['query.from'] = [`the window may span at most ${MAX_WINDOW_DAYS} days`];
  if (Object.keys(fieldErrors).length)
    throw new AppError('VALIDATION_ERROR', { message: 'Request validation failed', details: { fieldErrors } });
  return { from, to };
}

function truncate(at: Date, interval: Interval): number {
  const t = at.getTime();
  const size = interval === 'hour' ? 3600_000 : DAY_MS;
  return t - (((t % size) + size) % size);
}

interface TxBucketRow {
  /** The bucket's number: seconds since the epoch divided by the bucket's size (UTC hours or days). */
  bucket: string;
  total: string;
  success: string;
  failed: string;
  pending: string;
  fees: string;
}

export async function appMetrics(db: Knex, input: { appId: string; from: Date; to: Date }): Promise<AppMetrics> {
  const { appId, from, to } = input;
  const interval: Interval = to.getTime() - from.getTime() <= HOURLY_UP_TO_MS ? 'hour' : 'day';
  const feePayers = [...(await feePayersOf(db, appId))];
  const size = interval === 'hour' ? 3600_000 : DAY_MS;
  const window = { appId, from, to, size: size / 1000, feePayers };
  const [txRows, failures, walletRows, active, webhookRows, locked] = await Promise.all([
    // 1. the window's transactions per bucket (one index-only range scan); the fees the app's gas wallet paid, by the
    // Monitor's own rule (appTransactions.ts)
    db.raw<{ rows: TxBucketRow[] }>(
      `select floor(extract(epoch from created_at) / :size)::bigint as bucket,
              count(*) as total,
              count(*) filter (where status = 'SUCCESS') as success,
              count(*) filter (where status = 'FAILED') as failed,
              count(*) filter (where status = 'PENDING') as pending,
              coalesce(sum(fee_stroops) filter (where ${SPONSORED_FEE_CONDITION}), 0)::text as fees
         from transactions
        where app_id = :appId and created_at >= :from and created_at < :to
        group by 1`,
      window,
    ),
    // 2. the failures by Stellar result code, most frequent first
    db.raw<{ rows: { code: string; count: string }[] }>(
      `select result_code as code, count(*) as count
         from transactions
        where app_id = :appId and created_at >= :from and created_at < :to
          and status = 'FAILED' and result_code is not null
        group by 1 order by 2 desc, 1 limit ${FAILURE_CODES_SHOWN}`,
      window,
    ),
    // 3. user wallets created per bucket, and funded in the window
    db.raw<{ rows: { bucket: string | null; created: string; funded: string }[] }>(
      `select floor(extract(epoch from created_at) / :size)::bigint as bucket, count(*) as created, 0 as funded
         from wallets
        where app_id = :appId and user_id is not null and created_at >= :from and created_at < :to
        group by 1
       union all
       select null, 0, count(*)
         from wallets
        where app_id = :appId and user_id is not null and funded_at >= :from and funded_at < :to`,
      window,
    ),
    // 4. active users: signed in, renewed a session or transacted in the window
    db.raw<{ rows: { n: string }[] }>(
      `select count(*) as n from (
         (select distinct user_id as id from transactions
           where app_id = :appId and created_at >= :from and created_at < :to and user_id is not null)
         union
         select subject_id from sessions
          where app_id = :appId and audience = 'user' and created_at >= :from and created_at < :to
         union
         select subject_id from sessions
          where app_id = :appId and audience = 'user' and last_refreshed_at >= :from and last_refreshed_at < :to
       ) users`,
      window,
    ),
    // 5. webhook events of the window by outcome (skipped ones went to no endpoint)
    db.raw<{ rows: { status: string; n: string }[] }>(
      `select status, count(*) as n from outbox_events
        where app_id = :appId and created_at >= :from and created_at < :to and status <> 'skipped'
        group by 1`,
      window,
    ),
    lockedReserveStroops(db, appId),
  ]);

  // the series: every bucket of the window, empty ones included, the first clipped to the window's start
  const buckets = new Map<number, { tx: TxBucketRow | undefined; wallets: number }>();
  for (let t = truncate(from, interval); t < to.getTime(); t += size) buckets.set(t, { tx: undefined, wallets: 0 });
  for (const row of txRows.rows) {
    const slot = buckets.get(Number(row.bucket) * size);
    if (slot) slot.tx = row;
  }
  let funded = 0;
  for (const row of walletRows.rows) {
    if (row.bucket === null) funded += Number(row.funded);
    else {
      const slot = buckets.get(Number(row.bucket) * size);
      if (slot) slot.wallets += Number(row.created);
    }
  }
  const totals = { total: 0, success: 0, failed: 0, pending: 0, fees: 0n, walletsCreated: 0 };
  const series: MetricsBucket[] = [];
  for (const [start, { tx, wallets }] of buckets) {
    const fees = BigInt(tx?.fees ?? 0);
    totals.total += Number(tx?.total ?? 0);
    totals.success += Number(tx?.success ?? 0);
    totals.failed += Number(tx?.failed ?? 0);
    totals.pending += Number(tx?.pending ?? 0);
    totals.fees += fees;
    totals.walletsCreated += wallets;
    series.push({
      start: new Date(Math.max(start, from.getTime())).toISOString(),
      transactions: Number(tx?.total ?? 0),
      failed: Number(tx?.failed ?? 0),
      walletsCreated: wallets,
      sponsoredFeesXlm: fromStroops(fees),
    });
  }
  const byStatus = new Map(webhookRows.rows.map((r) => [r.status, Number(r.n)]));
  const delivered = byStatus.get('delivered') ?? 0;
  const failedEvents = byStatus.get('failed') ?? 0;
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    wallets: { created: totals.walletsCreated, funded },
    transactions: { total: totals.total, success: totals.success, failed: totals.failed, pending: totals.pending },
    sponsoredFeesXlm: fromStroops(totals.fees),
    lockedReserveXlm: fromStroops(locked),
    failuresByCode: failures.rows.map((r) => ({ code: r.code, count: Number(r.count) })),
    activeUsers: Number(active.rows[0]?.n ?? 0),
    webhooks: {
      delivered,
      failed: failedEvents,
      pending: byStatus.get('pending') ?? 0,
      successRate: delivered + failedEvents === 0 ? null : delivered / (delivered + failedEvents),
    },
    interval,
    series,
  };
}
