// The load test (issue 22, part 6): LOAD_USERS simulated users (1,000) sign in by email code and then pay, each every
// ~LOAD_PAY_EVERY_S seconds, for LOAD_DURATION_S (600) against the cluster of `make cluster`: three API processes and
// two workers on one embedded PostgreSQL and one localnet (a ledger every 5 s, as on Stellar), behind the cluster's
// round-robin proxy, started here as a child (bench/loadCluster.ts). It reports throughput (requests/s, payments
// applied per ledger and per s), latency per step (sign-in start, sign-in verify, first funded, runTransaction) as
// p50/p90/p99/max, every answer that is not a success by request, HTTP status and error `code`, and ends with the bank
// check of the fault tests (tests/support/bankCheck.ts), so the payments counted are real money moved exactly once.
//
//   set-up    the cluster on free ports and a throwaway data directory; an app created through the domain layer by an
//             in-process service on the cluster's database and chain (then stopped): Immediate funding with a 1 XLM
//             starting balance (enough for a user's payments of 0.0001 to 0.001 XLM), its funding wallet filled by
//             friendbot, a publishable key; an account outside the service (a merchant) funded by friendbot.
//   baseline  in the same run, before the load: GET /health through the proxy and to api-1 alone, with autocannon
//             (10 connections, 10 s each); then 10 users sign in one at a time, and the last one pays 20 times, one
//             payment at a time, each request at a random point of the ledger cycle: each step's latency on an idle
//             cluster.
//   load      users arrive evenly over LOAD_RAMP_S (60), sign in, wait until their wallet is funded, then pay until
//             the end: a small XLM payment by runTransaction to a random user who is already funded (or the
//             merchant), the next one started ~LOAD_PAY_EVERY_S (30) after the last one started (uniform in 0.5-1.5
//             of it), so 1,000 users offer ~33 payments/s (~167 per 5 s ledger), as a busy app at its peak. A user
//             whose answer takes longer than that pays again when it comes (one payment in flight per user, as one
//             person with one app does). Progress is printed every 10 s.
//   after     the users' last answers, the transactions settle (the workers confirm them), the bank check runs, and
//             the payments applied per ledger are read from the records.
//
// The driver is a small k6-style loop of virtual users on node:http (bench/loadUsers.ts), not autocannon: every user
// holds its own session and DPoP key, signs a fresh proof for every request with the nonce the server last sent it,
// reads its code from the mail outbox, and decides what to send next from the last answer (funded yet? a refresh
// due?). autocannon drives a fixed set of requests over shared connections; its setupRequest hook could attach
// proofs, but not per-user state, the sign-in flow or think time. It measures the /health baseline, which is what it
// is good at.
//
// Limits configured so that they are not what is measured (the report says so): RATE_LIMIT_PER_KEY_PER_MINUTE and
// TESTNET_DAILY_QUOTA at 1e9 (defaults 600 per user per minute and 1,000 requests per testnet key per day: 1,000 users
// spend the quota in a second); the app's fee policy is the default (no daily operations cap; max fee 10 XLM). The
// sign-in abuse limits (30 code requests per hour and 30 verifications per 10 minutes per client IP and app, not
// configurable) are met the way real users meet them: each user has its own address (127.10.x.y), which the proxy
// names in X-Forwarded-For and the API processes trust (TRUST_PROXY=loopback, set by scripts/cluster.ts). Before
// TRUST_PROXY, a trial of this test saw every user through the proxy as 127.0.0.1: the 31st sign-in of the hour was
// refused.
//
// Settings (environment): LOAD_USERS (1000), LOAD_DURATION_S (600), LOAD_RAMP_S (60), LOAD_PAY_EVERY_S (30),
// LOAD_LEDGER_SECONDS (5), LOAD_ACCESS_TOKEN_TTL_MINUTES (the app's, 15 by default; shorter makes the users refresh
// their sessions during the run).
//
// Results in bench/results/<date>-load.md. BENCH_SMOKE=1: 4 users for 5 s on 0.5 s ledgers, each paying at least once,
// nothing recorded (with the cluster's start, about 30 s).
import { cpus, loadavg, totalmem } from 'node:os';
import { Keypair } from '@stellar/stellar-sdk';
import autocannon from 'autocannon';
import { pino } from 'pino';
import { loadConfig } from '../src/config';
import { createApiKey } from '../src/domain/apiKeys/apiKeys';
import { createOperator, updateAppSettings } from '../src/domain/apps/store';
import { fundAppWalletFromFriendbot } from '../src/domain/treasury/treasury';
import { createAppWithWallet } from '../src/domain/wallets/appWallets';
import { createDb, type Db } from '../src/infra/db/database';
import { createStellarGateway, type StellarGateway } from '../src/infra/stellar/gateway';
import { startService } from '../src/service';
import { bankCheck, untilSettled, type BankCheckReport } from '../tests/support/bankCheck';
import { startCluster, type ClusterChild } from './loadCluster';
import { OutboxCodes, userAddress, VirtualUser, type Answer, type Recorder, type Target } from './loadUsers';
import { percentile, recordReport, sized, SMOKE } from './support';

const USERS = Number(process.env.LOAD_USERS ?? sized(1000, 4));
const DURATION_S = Number(process.env.LOAD_DURATION_S ?? sized(600, 5));
const RAMP_S = Number(process.env.LOAD_RAMP_S ?? sized(60, 1));
const PAY_EVERY_S = Number(process.env.LOAD_PAY_EVERY_S ?? sized(30, 1));
const LEDGER_S = Number(process.env.LOAD_LEDGER_SECONDS ?? sized(5, 0.5));
/** The app's access-token lifetime (its default: 15 minutes); shorter makes the users refresh during the run. */
const TOKEN_TTL_MINUTES = process.env.LOAD_ACCESS_TOKEN_TTL_MINUTES
  ? Number(process.env.LOAD_ACCESS_TOKEN_TTL_MINUTES)
  : undefined;
/** Channel accounts of the funding wallet: activations of ~17 sign-ins/s need several batches per ledger. */
const ACTIVATION_CHANNELS = sized(10, 2);
const HEALTH_SECONDS = sized(10, 0.5);
const BASELINE_SIGN_INS = sized(10, 1);
const BASELINE_PAYMENTS = sized(20, 1);
/**
 * Payments each signed-in user makes even past the load's end: a smoke run's 5 s can be over before a loaded machine
 * (a CI run beside other tests) has signed anyone in, and it must still pay to check the payment path and the bank.
 */
const MIN_PAYMENTS_PER_USER = sized(0, 1);
const STARTING_BALANCE_XLM = '1';
const PROGRESS_EVERY_MS = 10_000;
/** The settings a run may change, named in the report's command. */
const LOAD_SETTINGS = [
  'LOAD_USERS',
  'LOAD_DURATION_S',
  'LOAD_RAMP_S',
  'LOAD_PAY_EVERY_S',
  'LOAD_LEDGER_SECONDS',
  'LOAD_ACCESS_TOKEN_TTL_MINUTES',
];
/** How long the records may take to settle after the last answer (a pending payment is confirmed by a worker). */
const SETTLE_TIMEOUT_MS = 180_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every request and step of one phase (the baseline user, or the load), kept whole: the report is computed from it. */
class Tally implements Recorder {
  readonly started = performance.now();
  readonly requests: { t: number; kind: string; status: number; code: string }[] = [];
  readonly steps: { t: number; step: string; ms: number }[] = [];
  readonly outcomes = new Map<string, number>();

  request(kind: string, answer: Answer): void {
    const code = answer.failure ?? (answer.body?.code as string | undefined) ?? '(no code)';
    this.requests.push({ t: performance.now() - this.started, kind, status: answer.status, code });
  }

  step(step: string, ms: number): void {
    this.steps.push({ t: performance.now() - this.started, step, ms });
  }

  outcome(status: string): void {
    this.outcomes.set(status, (this.outcomes.get(status) ?? 0) + 1);
  }

  latencies(step: string, from = 0, to = Infinity): number[] {
    return this.steps.filter((s) => s.step === step && s.t >= from && s.t < to).map((s) => s.ms);
  }

  /** Answers that are not a success (2xx), by request kind, status and code, most frequent first. */
  failures(): { kind: string; status: number; code: string; count: number }[] {
    const counts = new Map<string, number>();
    for (const r of this.requests)
      if (r.status < 200 || r.status >= 300) {
        const key = `${r.kind}\t${r.status}\t${r.code}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    return [...counts.entries()]
      .map(([key, count]) => {
        const [kind, status, code] = key.split('\t') as [string, string, string];
        return { kind, status: Number(status), code, count };
      })
      .sort((a, b) => b.count - a.count);
  }
}

const isNonceExchange = (kind: string) => kind.endsWith('(nonce exchange)');

interface Seeded {
  appId: string;
  publishableKey: string;
  merchant: string;
  networkPassphrase: string;
}

/** The app of the load test, through the domain layer, by an in-process service on the cluster's database and chain. */
async function seedApp(cluster: ClusterChild): Promise<Seeded> {
  const svc = await startService(
    loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: cluster.databaseUrl,
      STELLAR_TESTNET_RPC_URL: cluster.rpcUrl,
      LOCALNET: 'off',
      // The cluster's data directory: the same service secret and local master key as its processes.
      ONBOARD_DATA_DIR: cluster.dataDir,
      LOG_LEVEL: 'silent',
      DEMO_SEED: 'off',
      WORKERS: 'off',
    }),
    pino({ level: 'silent' }),
  );
  try {
    const { db } = svc.deps;
    const operator = await createOperator(db, { email: `load-owner-${Date.now()}@example.com` });
    const { app } = await createAppWithWallet(svc.deps, {
      name: 'Load test app',
      network: 'testnet',
      ownerOperatorId: operator.id,
    });
    const settled = await updateAppSettings(db, app.id, {
      fundingMode: 'immediate',
      startingBalanceXlm: STARTING_BALANCE_XLM,
      ...(TOKEN_TTL_MINUTES ? { accessTokenTtlMinutes: TOKEN_TTL_MINUTES } : {}),
    });
    const key = await createApiKey(db, { appId: app.id, type: 'publishable', network: 'testnet', label: 'load test' });
    if (!(await fundAppWalletFromFriendbot(svc.deps, settled!)))
      throw new Error('friendbot did not fund the app wallet');
    const gw = svc.deps.stellar?.gateways?.testnet;
    if (!gw) throw new Error('the seeding service has no testnet gateway');
    const merchant = Keypair.random().publicKey();
    await gw.fundWithFriendbot(merchant);
    return { appId: app.id, publishableKey: key.key, merchant, networkPassphrase: gw.networkPassphrase };
  } finally {
    await svc.close();
  }
}

interface HealthSample {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

async function health(url: string): Promise<HealthSample> {
  const r = await autocannon({ url: `${url}/health`, connections: 10, duration: HEALTH_SECONDS });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx + r.errors };
}

/**
 * Users alone, one at a time, before the load: BASELINE_SIGN_INS sign in, then the last of them pays BASELINE_PAYMENTS
 * times, one payment at a time: each step on an otherwise idle cluster. Each request waits a random 0 to 1 ledger
 * first, so that it lands at a random point of the ledger cycle as the load's requests do: one sent just after an
 * answer (which comes just after a close) would always wait a whole ledger.
 */
async function aloneBaseline(target: Target, merchant: string): Promise<Tally> {
  const tally = new Tally();
  const anyPointOfTheLedger = () => sleep(Math.random() * LEDGER_S * 1000);
  let last: VirtualUser | undefined;
  try {
    for (let i = 0; i < BASELINE_SIGN_INS; i++) {
      last?.close();
      last = new VirtualUser(i, `load-alone-${Date.now()}-${i}@example.com`, userAddress(i, 11), target, tally);
      await last.init();
      await anyPointOfTheLedger();
      if (!(await last.signIn()))
        throw new Error(`a baseline user could not sign in: ${JSON.stringify(tally.failures())}`);
    }
    for (let i = 0; i < BASELINE_PAYMENTS; i++) {
      await anyPointOfTheLedger();
      const outcome = await last!.pay(merchant, 1000 + i);
      if (outcome === undefined) throw new Error(`a baseline payment failed: ${JSON.stringify(tally.failures())}`);
      tally.outcome(outcome);
    }
  } finally {
    last?.close();
  }
  return tally;
}

interface LoadRun {
  tally: Tally;
  users: VirtualUser[];
  /** Milliseconds from the load's start to the last answer. */
  wallMs: number;
  signedIn: number;
  signInFailed: number;
  startedAt: Date;
}

async function load(target: Target, merchant: string): Promise<LoadRun> {
  const tally = new Tally();
  const runId = Date.now();
  const users = Array.from(
    { length: USERS },
    (_, i) => new VirtualUser(i, `load-${runId}-${i}@example.com`, userAddress(i), target, tally),
  );
  await Promise.all(users.map((u) => u.init()));
  const funded: string[] = [];
  let arrived = 0;
  let signedIn = 0;
  let signInFailed = 0;
  let inFlight = 0;
  let amount = 0;
  const startedAt = new Date();
  const t0 = performance.now();
  const end = t0 + DURATION_S * 1000;

  const progress = setInterval(() => {
    const now = performance.now() - tally.started;
    const recent = tally.requests.filter((r) => r.t >= now - PROGRESS_EVERY_MS);
    const failed = tally.requests.filter((r) => (r.status < 200 || r.status >= 300) && !isNonceExchange(r.kind));
    const paid = tally.latencies('runTransaction').length;
    console.log(
      `[load +${Math.round(now / 1000)} s] users: ${arrived} arrived, ${signedIn} signed in and funded, ${signInFailed} failed; ` +
        `payments answered: ${paid} (${[...tally.outcomes].map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}); ` +
        `errors: ${failed.length}; in flight: ${inFlight}; last 10 s: ${(recent.length / (PROGRESS_EVERY_MS / 1000)).toFixed(1)} req/s`,
    );
  }, PROGRESS_EVERY_MS);

  const life = async (user: VirtualUser) => {
    await sleep((user.index * RAMP_S * 1000) / USERS);
    arrived++;
    if (!(await user.signIn())) {
      signInFailed++;
      return;
    }
    signedIn++;
    funded.push(user.publicKey!);
    let next = performance.now() + Math.random() * PAY_EVERY_S * 1000;
    for (let paid = 0; ; paid++) {
      const owed = paid < MIN_PAYMENTS_PER_USER;
      await sleep(Math.max(0, (owed ? next : Math.min(next, end)) - performance.now()));
      if (!owed && performance.now() >= end) return;
      const started = performance.now();
      // Another user already funded, or the merchant when the user is the first.
      const others = funded.length - 1;
      let destination = merchant;
      if (others > 0) {
        const pick = Math.floor(Math.random() * funded.length);
        destination = funded[pick] === user.publicKey ? merchant : funded[pick]!;
      }
      inFlight++;
      const outcome = await user.pay(destination, 1000 + (amount++ % 9000));
      inFlight--;
      if (outcome) tally.outcome(outcome);
      next = started + PAY_EVERY_S * 1000 * (0.5 + Math.random());
    }
  };
  try {
    await Promise.all(users.map(life));
  } finally {
    clearInterval(progress);
    for (const u of users) u.close();
  }
  return { tally, users, wallMs: performance.now() - t0, signedIn, signInFailed, startedAt };
}

const fmt = (ms: number | undefined) =>
  ms === undefined ? '-' : ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`;
const num = (n: number) => n.toLocaleString('en-US');

function latencyRow(step: string, values: number[], alone: number[]): string {
  if (!values.length)
    return `| ${step} | 0 | - | - | - | - | ${fmt(alone.length ? percentile(alone, 50) : undefined)} | - |`;
  const p50 = percentile(values, 50);
  const aloneP50 = alone.length ? percentile(alone, 50) : undefined;
  return `| ${step} | ${num(values.length)} | ${fmt(p50)} | ${fmt(percentile(values, 90))} | ${fmt(percentile(values, 99))} | ${fmt(Math.max(...values))} | ${fmt(aloneP50)} | ${aloneP50 ? `${(p50 / aloneP50).toFixed(2)}x` : '-'} |`;
}

interface ChainFigures {
  bank: BankCheckReport | undefined;
  bankError: string | undefined;
  perLedger: number[];
  ledgersSpanned: number;
  statuses: { status: string; stage: string; result_code: string | null; count: number }[];
  origins: { origin: string; status: string; count: number }[];
  stillSubmitted: number;
}

async function chainFigures(
  db: Db,
  gw: StellarGateway,
  appId: string,
  since: Date,
  ledgers: { from: number; to: number },
): Promise<ChainFigures> {
  let bank: BankCheckReport | undefined;
  let bankError: string | undefined;
  try {
    await untilSettled(db, appId, SETTLE_TIMEOUT_MS);
    console.log('bank check...');
    bank = await bankCheck(db, gw, appId);
  } catch (err) {
    bankError = err instanceof Error ? err.message : String(err);
  }
  const perLedgerRows = await db.raw<{ rows: { ledger: number; n: string }[] }>(
    `select ledger, count(*) as n from transactions
      where app_id = ? and origin = 'built' and status = 'SUCCESS' and created_at >= ? and ledger is not null
      group by ledger`,
    [appId, since],
  );
  const byLedger = new Map(perLedgerRows.rows.map((r) => [Number(r.ledger), Number(r.n)]));
  // Every ledger the load spanned counts, also one without a payment.
  const perLedger: number[] = [];
  for (let l = ledgers.from + 1; l <= ledgers.to; l++) perLedger.push(byLedger.get(l) ?? 0);
  const statusRows = await db.raw<{ rows: { status: string; stage: string; result_code: string | null; n: string }[] }>(
    `select status, stage, result_code, count(*) as n from transactions
      where app_id = ? and origin = 'built' and created_at >= ?
      group by status, stage, result_code order by count(*) desc`,
    [appId, since],
  );
  const statuses = statusRows.rows.map((r) => ({ ...r, count: Number(r.n) }));
  // Everything the app's records hold, the baseline's and the ledger follower's included: what the bank check covers.
  const originRows = await db.raw<{ rows: { origin: string; status: string; n: string }[] }>(
    `select origin, status, count(*) as n from transactions where app_id = ? group by origin, status order by origin`,
    [appId],
  );
  const origins = originRows.rows.map((r) => ({ origin: r.origin, status: r.status, count: Number(r.n) }));
  const submittedRows = await db.raw<{ rows: { n: string }[] }>(
    `select count(*) as n from transactions where app_id = ? and stage = 'submitted'`,
    [appId],
  );
  const stillSubmitted = Number(submittedRows.rows[0]!.n);
  return { bank, bankError, perLedger, ledgersSpanned: ledgers.to - ledgers.from, statuses, origins, stillSubmitted };
}

export async function runLoad(): Promise<void> {
  const loadAtStart = loadavg();
  console.log(`starting the cluster (3 API processes, 2 workers, a ledger every ${LEDGER_S} s)...`);
  const cluster = await startCluster({
    LOCALNET_LEDGER_SECONDS: String(LEDGER_S),
    ACTIVATION_CHANNELS: String(ACTIVATION_CHANNELS),
    RATE_LIMIT_PER_KEY_PER_MINUTE: '1000000000',
    TESTNET_DAILY_QUOTA: '1000000000',
  });
  let db: Db | undefined;
  // Ctrl-C reaches the cluster too (it is in this process group) and it stops itself; this removes its data.
  const interrupted = (signal: NodeJS.Signals) => {
    console.log(`${signal}: stopping the cluster...`);
    void cluster.stop().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    console.log(`cluster ready at ${cluster.proxyUrl}; creating the app...`);
    const seeded = await seedApp(cluster);
    db = createDb(cluster.databaseUrl, { poolMax: 4 });
    const gw = createStellarGateway({
      network: 'testnet',
      rpcUrl: cluster.rpcUrl,
      networkPassphrase: seeded.networkPassphrase,
    });
    const outbox = new OutboxCodes(`${cluster.dataDir}/outbox`);
    const target: Target = {
      proxyUrl: cluster.proxyUrl,
      publicUrl: cluster.proxyUrl,
      publishableKey: seeded.publishableKey,
      outbox,
    };

    console.log(`baseline: GET /health through the proxy and to api-1, ${HEALTH_SECONDS} s each...`);
    const viaProxy = await health(cluster.proxyUrl);
    const direct = await health(cluster.apiUrls[0]!);
    console.log(
      `  proxy ${Math.round(viaProxy.rps)} req/s (p50 ${viaProxy.p50} ms, p99 ${viaProxy.p99} ms); api-1 ${Math.round(direct.rps)} req/s`,
    );
    console.log(
      `baseline: ${BASELINE_SIGN_INS} users sign in one at a time, then the last one pays ${BASELINE_PAYMENTS} times...`,
    );
    const alone = await aloneBaseline(target, seeded.merchant);
    for (const step of ['sign-in start', 'sign-in verify', 'first funded', 'runTransaction'])
      console.log(`  ${step}: p50 ${fmt(percentile(alone.latencies(step), 50))}`);

    cluster.logs.reset();
    const ledgerFrom = (await gw.ledgerFigures()).sequence;
    const cpuBefore = cluster.cpuSeconds();
    const benchCpuBefore = process.cpuUsage();
    console.log(
      `load: ${USERS} users arriving over ${RAMP_S} s, each paying every ~${PAY_EVERY_S} s, for ${DURATION_S} s...`,
    );
    const run = await load(target, seeded.merchant);
    const cpuAfter = cluster.cpuSeconds();
    const benchCpu = process.cpuUsage(benchCpuBefore);
    const ledgerTo = (await gw.ledgerFigures()).sequence;
    outbox.stop();
    console.log(`load done in ${(run.wallMs / 1000).toFixed(1)} s; settling and checking the bank...`);
    const chain = await chainFigures(db, gw, seeded.appId, run.startedAt, { from: ledgerFrom, to: ledgerTo });
    const loadAtEnd = loadavg();

    // ---- the report
    const { tally } = run;
    const wallS = run.wallMs / 1000;
    const steps = ['sign-in start', 'sign-in verify', 'first funded', 'runTransaction'];
    const failures = tally.failures();
    const errors = failures.filter((f) => !isNonceExchange(f.kind));
    const errorCount = errors.reduce((a, f) => a + f.count, 0);
    const nonceExchanges = failures.filter((f) => isNonceExchange(f.kind)).reduce((a, f) => a + f.count, 0);
    const runs = tally.requests.filter((r) => r.kind === 'runTransaction');
    const applied = chain.statuses.filter((s) => s.status === 'SUCCESS').reduce((a, s) => a + s.count, 0);
    const perLedgerMean = chain.perLedger.reduce((a, b) => a + b, 0) / Math.max(1, chain.perLedger.length);
    const rampEndMs = RAMP_S * 1000;
    const steadyMs = DURATION_S * 1000 - rampEndMs;
    const steadyRequests = tally.requests.filter((r) => r.t >= rampEndMs && r.t < DURATION_S * 1000).length;
    const minutes = Math.ceil(DURATION_S / 60);
    const perMinute = Array.from({ length: minutes }, (_, m) => {
      const from = m * 60_000;
      const to = Math.min((m + 1) * 60_000, DURATION_S * 1000);
      const reqs = tally.requests.filter((r) => r.t >= from && r.t < to);
      const pays = tally.latencies('runTransaction', from, to);
      const errs = reqs.filter((r) => (r.status < 200 || r.status >= 300) && !isNonceExchange(r.kind)).length;
      const secs = (to - from) / 1000;
      return `| ${m + 1} | ${(reqs.length / secs).toFixed(1)} | ${(pays.length / secs).toFixed(1)} | ${pays.length ? `${fmt(percentile(pays, 50))} / ${fmt(percentile(pays, 99))}` : '-'} | ${errs} |`;
    });
    const sortedPerLedger = [...chain.perLedger].sort((a, b) => a - b);
    const cpuRows = Object.keys(cpuAfter).map((name) => {
      const s = cpuAfter[name]! - (cpuBefore[name] ?? 0);
      return `| ${name}${name === 'api-1' ? ' (with the embedded PostgreSQL and localnet)' : name === 'proxy' ? ' (scripts/cluster.ts itself)' : ''} | ${s.toFixed(1)} | ${((100 * s) / wallS).toFixed(0)}% |`;
    });
    const benchCpuS = (benchCpu.user + benchCpu.system) / 1e6;
    const totalCpu = Object.keys(cpuAfter).reduce((a, n) => a + cpuAfter[n]! - (cpuBefore[n] ?? 0), 0) + benchCpuS;
    const logRows = cluster.logs.entries().slice(0, 15);
    const date = new Date().toISOString().slice(0, 10);
    const outcomes = [...tally.outcomes].map(([k, v]) => `${num(v)} ${k}`).join(', ');
    const aloneOutcomes = [...alone.outcomes].map(([k, v]) => `${v} ${k}`).join(', ');
    const report = [
      `# Load test: ${num(USERS)} users signing in and paying for ${DURATION_S % 60 === 0 ? `${DURATION_S / 60} minutes` : `${DURATION_S} s`} against the cluster (${date})`,
      '',
      `Command: \`${[...LOAD_SETTINGS.filter((k) => process.env[k]).map((k) => `${k}=${process.env[k]}`), 'BENCH=load node_modules/.bin/node --import tsx bench/run.ts'].join(' ')}\` (bench/load.ts; the same as \`BENCH=load npm run -s bench\`).`,
      `Machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}. The cluster, the load generator and the chain share the machine's ${cpus().length} cores, and the machine was shared with other work at the time (load average ${loadAtStart.map((l) => l.toFixed(1)).join(' / ')} before the cluster started, ${loadAtEnd.map((l) => l.toFixed(1)).join(' / ')} at the end): read the ratios to the baseline, not the absolute figures.`,
      '',
      `Set-up: \`make cluster\` (scripts/cluster.ts) as a child: 3 API processes and 2 workers on one embedded PostgreSQL and one localnet closing a ledger every ${LEDGER_S} s, behind the cluster's round-robin proxy; ACTIVATION_CHANNELS=${ACTIVATION_CHANNELS}, RATE_LIMIT_STORE=postgres. One app, created through the domain layer: Immediate funding, a starting balance of ${STARTING_BALANCE_XLM} XLM, funding and gas wallet filled by friendbot (10,000 XLM), the default fee policy (no daily operations cap, max fee 10 XLM, gas minimum 10 XLM). ${num(USERS)} users arrive evenly over ${RAMP_S} s; each signs in by email code (the code read from the cluster's dev outbox), waits until its wallet is funded, then pays a random funded user (or an account outside the service) 0.0001-0.001 XLM by runTransaction, with an Idempotency-Key, the next payment started ${PAY_EVERY_S} s (uniform 0.5-1.5x) after the last one started, until ${DURATION_S} s: an offered load of ~${(USERS / PAY_EVERY_S).toFixed(0)} payments/s (~${((USERS / PAY_EVERY_S) * LEDGER_S).toFixed(0)} per ledger) once all have arrived. Each user has its own connection from its own loopback address, its own ES256 DPoP key, follows the server's DPoP nonce and refreshes its session before its access token expires (${TOKEN_TTL_MINUTES ?? 15} minutes).`,
      '',
      `Limits configured so that they are not what is measured: RATE_LIMIT_PER_KEY_PER_MINUTE and TESTNET_DAILY_QUOTA at 1e9 (defaults: 600 requests per user per minute; 1,000 requests per testnet key per UTC day, which this test spends in seconds). The sign-in abuse limits (30 code requests per hour and 30 verifications per 10 minutes, per client address and app) are not configurable and were left as they are: each user has its own address. Every request, sign-in included, went through the proxy, which names the user's address in X-Forwarded-For; the API processes trust it (TRUST_PROXY=loopback, set by the cluster). Errors that occurred are all counted below.`,
      '',
      '## Baseline, same run, before the load',
      '',
      '| measure | result |',
      '|---|---|',
      `| GET /health through the proxy (autocannon, 10 connections, ${HEALTH_SECONDS} s) | ${num(Math.round(viaProxy.rps))} req/s, p50 ${viaProxy.p50} ms, p99 ${viaProxy.p99} ms, ${viaProxy.non2xx} non-2xx |`,
      `| GET /health to api-1 directly (same) | ${num(Math.round(direct.rps))} req/s, p50 ${direct.p50} ms, p99 ${direct.p99} ms, ${direct.non2xx} non-2xx |`,
      `| users alone (${BASELINE_SIGN_INS}, one at a time, each at a random point of the ledger cycle): sign-in start, verify, first funded, p50 | ${steps
        .slice(0, 3)
        .map((s) => fmt(percentile(alone.latencies(s), 50)))
        .join(', ')} |`,
      `| one user alone: runTransaction, ${BASELINE_PAYMENTS} payments one at a time (each at a random point of the ledger cycle), p50 / max | ${fmt(percentile(alone.latencies('runTransaction'), 50))} / ${fmt(Math.max(...alone.latencies('runTransaction')))} (${aloneOutcomes}) |`,
      '',
      '## Throughput',
      '',
      '| measure | result |',
      '|---|---|',
      `| users signed in and funded | ${num(run.signedIn)} of ${num(USERS)} (${run.signInFailed} failed) |`,
      `| requests | ${num(tally.requests.length)} in ${wallS.toFixed(0)} s: ${(tally.requests.length / wallS).toFixed(1)} req/s; after the ramp (${RAMP_S}-${DURATION_S} s) ${(steadyRequests / (steadyMs / 1000)).toFixed(1)} req/s (the /health baseline through the proxy: ${num(Math.round(viaProxy.rps))}) |`,
      `| requests by kind | ${[...new Set(tally.requests.map((r) => r.kind))].map((k) => `${k} ${num(tally.requests.filter((r) => r.kind === k).length)}`).join(', ')} |`,
      `| runTransaction requests | ${num(runs.length)}: ${outcomes || 'none answered 200'}; ${runs.filter((r) => r.status !== 200).length} not 200 |`,
      `| payments applied on the ledger (records SUCCESS) | ${num(applied)}: ${(applied / (DURATION_S - RAMP_S / 2)).toFixed(1)} per s over the ${DURATION_S} s less half the ramp (offered ${(USERS / PAY_EVERY_S).toFixed(1)} per s once all had arrived) |`,
      `| payments applied per ledger | mean ${perLedgerMean.toFixed(1)}, median ${sortedPerLedger.length ? percentile(sortedPerLedger, 50) : 0}, p90 ${sortedPerLedger.length ? percentile(sortedPerLedger, 90) : 0}, max ${sortedPerLedger.length ? Math.max(...sortedPerLedger) : 0} over the ${chain.ledgersSpanned} ledgers the load spanned (a ledger holds 1,000 operations) |`,
      `| transactions by outcome (records of the load) | ${chain.statuses.map((s) => `${s.status}/${s.stage}${s.result_code ? ` ${s.result_code}` : ''}: ${num(s.count)}`).join('; ')} |`,
      '',
      '## Latency per step',
      '',
      'What a user waited: sign-in start (the code request), sign-in verify (from the verify request to its answer, with a DPoP nonce exchange when the server asks), first funded (from the verify request until the user knows the wallet is funded: the verify answer, or GET /v1/wallet every 500 ms), runTransaction (its answer: `success` once in a ledger, or `pending` after the service waited 5 s).',
      '',
      '| step | n | p50 | p90 | p99 | max | alone, p50 | p50 / alone |',
      '|---|---|---|---|---|---|---|---|',
      ...steps.map((s) => latencyRow(s, tally.latencies(s), alone.latencies(s))),
      '',
      '## Per minute',
      '',
      '| minute | requests/s | runTransaction answers/s | runTransaction p50 / p99 | errors |',
      '|---|---|---|---|---|',
      ...perMinute,
      '',
      '## Answers that were not a success',
      '',
      `${num(errorCount)} errors in ${num(tally.requests.length)} requests${nonceExchanges ? `, and ${num(nonceExchanges)} DPoP nonce exchanges (401 SDK_AUTH_DPOP_USE_NONCE answered to a proof without the current nonce, retried at once as RFC 9449 asks: expected once for each new client and each new nonce window)` : ''}. Status 0 is no answer (the code says why).`,
      '',
      '| request | HTTP status | code | count |',
      '|---|---|---|---|',
      ...(failures.length
        ? failures.map((f) => `| ${f.kind} | ${f.status} | ${f.code} | ${num(f.count)} |`)
        : ['| - | - | - | 0 |']),
      '',
      '## Bank check',
      '',
      chain.bank
        ? `Passed (tests/support/bankCheck.ts, after every record settled): ${num(chain.bank.walletsFunded)} wallets funded once each (${chain.bank.walletsUnfunded} not funded, with no account), the funding wallet sponsors exactly their entries, ${num(chain.bank.transactionsApplied)} transactions applied (the baseline user's included), each with the fee recorded equal to the fee charged to its payer (${(Number(chain.bank.feesStroops) / 1e7).toFixed(7)} XLM in all), every transaction applied from a wallet's account one of its applied records and the account's sequence number the last one's, one event per activation and per applied transaction; ${chain.bank.transactionsRefused} refused before any ledger.`
        : `**FAILED**: ${chain.bankError} (${chain.stillSubmitted} records still submitted).`,
      '',
      `The app's transaction records by origin and status (the baseline's and the set-up's included): ${chain.origins.map((o) => `${o.origin} ${o.status} ${num(o.count)}`).join('; ')}.`,
      '',
      '## CPU time over the load',
      '',
      `Seconds of CPU (user + system) of each process of the cluster with what it started, from /proc, over the ${wallS.toFixed(0)} s of the load; ${cpus().length} cores give ${(cpus().length * wallS).toFixed(0)} s. The load generator (this process) used ${benchCpuS.toFixed(1)} s; all together ${totalCpu.toFixed(0)} s, ${((100 * totalCpu) / (cpus().length * wallS)).toFixed(0)}% of the machine.`,
      '',
      '| process | CPU s | of one core |',
      '|---|---|---|',
      ...cpuRows,
      `| load generator | ${benchCpuS.toFixed(1)} | ${((100 * benchCpuS) / wallS).toFixed(0)}% |`,
      '',
      '## What the service logged (warnings and errors, LOG_LEVEL=warn)',
      '',
      `${num(cluster.logs.lines)} lines during the load.`,
      '',
      '| process | level | message | count |',
      '|---|---|---|---|',
      ...(logRows.length
        ? logRows.map((l) => `| ${l.kind} | ${l.level} | ${l.message.replace(/\|/g, '\\|')} | ${num(l.count)} |`)
        : ['| - | - | - | 0 |']),
      '',
    ].join('\n');
    recordReport(`${date}-load.md`, report);
    if (!chain.bank) throw new Error(`the bank check failed: ${chain.bankError}`);
    if (SMOKE && (run.signedIn !== USERS || applied === 0))
      throw new Error(`smoke run: ${run.signedIn} of ${USERS} users signed in, ${applied} payments applied`);
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    await db?.destroy().catch(() => undefined);
    await cluster.stop();
  }
}
