// The Dashboard's metrics (getAppMetrics) at a million transactions (issue 17): the app's 30-day and 1-day answers
// from appMetrics, against a floor measured in the same run: a bare indexed count of the same window's transactions
// (what reading the window costs at all). BENCH_METRICS_ROWS (1,000,000) transactions of one app spread over 30 days
// (plus 10% of another app's), statuses, fees and users mixed as in use; VACUUM ANALYZE first, as autovacuum would.
import { cpus, totalmem } from 'node:os';
import { createAppWithKeys } from '../src/cli/adminCommands';
import { appMetrics } from '../src/domain/monitoring/appMetrics';
import { percentile, recordReport, sized, withService } from './support';

const ROWS = Number(process.env.BENCH_METRICS_ROWS ?? sized(1_000_000, 1_000));
const RUNS = Number(process.env.BENCH_METRICS_RUNS ?? sized(30, 2));
const DAY = 86_400_000;

export async function runMetrics(): Promise<void> {
  const result = await withService('metrics', { LOCALNET: 'off' }, async (svc) => {
    const db = svc.deps.db;
    const make = (name: string) =>
      createAppWithKeys(svc.deps, { name, network: 'testnet', ownerEmail: 'bench@example.com', origins: [] });
    const [{ app }, { app: other }] = [await make('Metrics bench'), await make('Neighbour')];
    const gas = await db('wallets').where({ app_id: app.id, role: 'global' }).first('public_key');
    const end = Date.now();
    const seed = async (appId: string, rows: number) => {
      const started = Date.now();
      await db.raw(
        `insert into transactions (id, app_id, network, user_id, origin, status, stage, operation, ops_count, summary,
           source_account, hash, fee_stroops, fee_source, result_code, ledger, created_at, updated_at)
         select 'tx_b' || :appId || i, :appId, 'testnet', 'usr_b' || (i % 5000), 'built',
                (array['SUCCESS','SUCCESS','SUCCESS','SUCCESS','SUCCESS','SUCCESS','SUCCESS','SUCCESS','FAILED','PENDING'])[1 + i % 10],
                (array['confirmed','confirmed','confirmed','confirmed','confirmed','confirmed','confirmed','confirmed','failed','submitted'])[1 + i % 10],
                'payment', 1, 'Sent 1 XLM', 'GBENCH', md5(:appId || i) || md5(i || :appId), 200, :gas,
                case when i % 10 = 8 then (array['op_underfunded','tx_bad_seq','op_no_destination'])[1 + i % 3] else 'tx_success' end,
                case when i % 10 = 9 then null else 1000 + i / 10 end,
                to_timestamp((:end - (i::bigint * :span / :rows)) / 1000.0), now()
           from generate_series(1, :rows) as i`,
        { appId, rows, gas: gas!.public_key, end, span: 30 * DAY },
      );
      process.stdout.write(
        `seeded ${rows} transactions of ${appId} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
      );
    };
    await seed(app.id, ROWS);
    await seed(other.id, Math.round(ROWS / 10));
    await db.raw('vacuum analyze transactions');
    const bare = async (from: Date, to: Date) =>
      db.raw('select count(*) from transactions where app_id = ? and created_at >= ? and created_at < ?', [
        app.id,
        from,
        to,
      ]);
    const windows = {
      '30 days': { from: new Date(end - 30 * DAY), to: new Date(end) },
      '1 day': { from: new Date(end - DAY), to: new Date(end) },
    };
    const out: Record<string, { metrics: number[]; bare: number[]; total: number }> = {};
    for (const [name, w] of Object.entries(windows)) {
      const times = { metrics: [] as number[], bare: [] as number[] };
      let total = 0;
      await appMetrics(db, { appId: app.id, ...w }); // warm-up
      for (let i = 0; i < RUNS; i++) {
        let t = performance.now();
        total = (await appMetrics(db, { appId: app.id, ...w })).transactions.total;
        times.metrics.push(performance.now() - t);
        t = performance.now();
        await bare(w.from, w.to);
        times.bare.push(performance.now() - t);
      }
      out[name] = { ...times, total };
    }
    return out;
  });

  const ms = (v: number) => `${v.toFixed(1)} ms`;
  const date = new Date().toISOString().slice(0, 10);
  const lines = Object.entries(result).map(([name, r]) => {
    const [m50, m99, b50, b99] = [
      percentile(r.metrics, 50),
      percentile(r.metrics, 99),
      percentile(r.bare, 50),
      percentile(r.bare, 99),
    ];
    console.log(`${name}: metrics p50 ${ms(m50)} p99 ${ms(m99)}; bare count p50 ${ms(b50)} p99 ${ms(b99)}`);
    return `| ${name} (${r.total.toLocaleString('en')} transactions) | ${ms(m50)} | ${ms(m99)} | ${ms(b50)} | ${ms(b99)} | ${(m99 / b99).toFixed(1)}x |`;
  });
  const report = [
    `# Dashboard metrics at ${ROWS.toLocaleString('en')} transactions (${date})`,
    '',
    'Command: `BENCH=metrics make bench` (bench/metrics.ts). appMetrics (src/domain/monitoring/appMetrics.ts: the',
    "window's transactions per bucket in one index-only scan, failures by code, active users, wallets, webhook",
    'outcomes, the locked reserve) against a bare indexed `count(*)` of the same window, alternating, in the same run,',
    `${RUNS} runs each, on the embedded PostgreSQL after VACUUM ANALYZE. ${ROWS.toLocaleString('en')} transactions of`,
    'the app over 30 days (80% success, 10% failed, 10% pending; 5,000 users), another app with a tenth as many.',
    `Machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}.`,
    '',
    '| window | metrics p50 | metrics p99 | bare count p50 | bare count p99 | p99 ratio |',
    '|---|---|---|---|---|---|',
    ...lines,
    '',
  ].join('\n');
  recordReport(`${date}-metrics.md`, report);
}
