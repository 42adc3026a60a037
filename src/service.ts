// Assembles the running service: database (given or embedded), migrations, dependencies, HTTP server.
// main.ts uses it for `make run`; the tests use it to run the real thing on a free port.
import { existsSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { Networks } from '@stellar/stellar-sdk';
import { pino, type Logger } from 'pino';
import type { Document } from 'openapi-backend';
import { buildApp } from './app';
import type { Config, NetworkName } from './config';
import { systemClock } from './domain/deps';
import type { ServiceDeps } from './operations/types';
import { createDb, migrateToLatest } from './infra/db/database';
import { migrations } from './infra/db/migrations/index';
import {
  embeddedDatabaseUrl,
  reachableDataDir,
  startEmbeddedPostgres,
  type EmbeddedDatabase,
} from './infra/db/embeddedPostgres';
import { probeRpcHealth } from './infra/stellar/rpcHealth';
import { createStellarGateway, type StellarGateway } from './infra/stellar/gateway';
import { ActivationQueue } from './domain/funding/queue';
import { PayoutQueue } from './domain/distribution/payouts';
import { createMailer } from './infra/mail/index';
import { startJobQueue, type JobQueue } from './infra/jobs/jobQueue';
import { settleWithin } from './infra/jobs/settleWithin';
import { jobRegistry } from './jobs/registry';
import { createQueues, startWorkers } from './jobs/worker';
import { loadServiceSecrets } from './infra/secrets/serviceSecret';
import { createKeyManagement } from './infra/kms/index';
import { startLocalnet, type Localnet } from './localnet/index';
import { projectRoot } from './paths';
import { trackRequests, type HttpDrain } from './http/drain';
import { createBackgroundWork } from './infra/backgroundWork';
import { startChangeFeed, type ChangeFeed } from './infra/db/changeFeed';
import { CONNECT_TIMEOUT_MS, createRedisConnection, type RedisConnection } from './infra/redis/redis';

export interface RunningService {
  /** The API's base URL; empty for a worker (no HTTP server). */
  url: string;
  /** The API's requests (how many are running; whether it is draining); absent for a worker. */
  http?: Pick<HttpDrain, 'inFlight' | 'draining'>;
  /** The in-process local ledger playing testnet, when started (see Config.localnet). */
  localnet?: Localnet;
  deps: ServiceDeps;
  /** Where the database lives, for the banner: `embedded (<dir>)` or the URL's host. */
  databaseDescription: string;
  /** Migrations applied by this start, and how many the database has in all. */
  migrationsApplied: string[];
  migrationsTotal: number;
  close(): Promise<void>;
}

export function loadBundledSpec(): Document {
  return JSON.parse(readFileSync(join(projectRoot, 'openapi/dist/openapi.json'), 'utf8')) as Document;
}

function version(): string {
  return (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;
}

/** One chain gateway per configured network; localnet plays testnet with testnet's passphrase (also the admin CLI's). */
export function stellarGateways(
  rpcUrls: Partial<Record<NetworkName, string>>,
  config: Config,
): Partial<Record<NetworkName, StellarGateway>> {
  const passphrases: Record<NetworkName, string> = { testnet: Networks.TESTNET, mainnet: Networks.PUBLIC };
  const gateways: Partial<Record<NetworkName, StellarGateway>> = {};
  for (const [network, rpcUrl] of Object.entries(rpcUrls) as [NetworkName, string][]) {
    const friendbotUrl = network === 'testnet' ? config.testnetFriendbotUrl : undefined;
    gateways[network] = createStellarGateway({
      network,
      rpcUrl,
      networkPassphrase: passphrases[network],
      ...(friendbotUrl ? { friendbotUrl } : {}),
    });
  }
  return gateways;
}

export interface StartOptions {
  /** Told before each slow step (embedded PostgreSQL, migrations, localnet), for `make run`'s progress lines. */
  onProgress?: (line: string) => void;
  /**
   * The sponsor balance scan starts once this settles (make run: after the demo seed has funded the demo wallet, so
   * no sponsor.balance.low is reported for a wallet being funded); absent: at once.
   */
  sponsorScanAfter?: Promise<unknown>;
  /**
   * `worker` (`npm run worker`): background jobs only, no HTTP server, attached to the database and local ledger
   * another process runs (DATABASE_URL, or the embedded PostgreSQL and localnet of `make run` on their ports). Default
   * `service`: the API, with the jobs unless WORKERS=off.
   */
  role?: 'service' | 'worker';
}

/** How long closing waits for running background jobs (a pass waiting for a ledger holds only leases). */
const JOBS_STOP_WAIT_MS = 2_000;
/**
 * How long closing waits for the requests already running to be answered (a load balancer's deregistration delay is
 * usually longer; a request past this is cut off, and logged).
 */
const REQUESTS_DRAIN_MS = 10_000;
/** How long closing waits for work requests started without waiting (a key's last use, a friendbot top-up). */
const BACKGROUND_WAIT_MS = 2_000;

/** The background jobs this process runs: a worker all of them, the API's process none with WORKERS=off. */
export function jobsToRun(config: Config, worker = false): string[] {
  if (!config.workers && !worker) return [];
  return jobRegistry
    .map((job) => job.name)
    .filter((name) => config.sponsorBalanceScan || name !== 'sponsor-balance-scan')
    .filter((name) => config.transactions.ledgerFollower || name !== 'ledger-follower');
}

export async function startService(
  config: Config,
  log: Logger = pino({ level: config.logLevel }),
  opts: StartOptions = {},
): Promise<RunningService> {
  const progress = opts.onProgress ?? (() => {});
  // Read before anything starts: a bad secret stops start-up without leaving a database running.
  const secrets = loadServiceSecrets({ envValue: config.serviceSecret, file: join(config.dataDir, 'service-secret') });
  const kms = createKeyManagement(config.kms, config.dataKeyCache);
  const mailer = createMailer(config.mail, log);
  const worker = opts.role === 'worker';
  let embedded: EmbeddedDatabase | undefined;
  let databaseUrl = config.databaseUrl;
  let databaseDescription: string;
  if (databaseUrl) {
    databaseDescription = new URL(databaseUrl).host;
  } else if (worker) {
    databaseUrl = embeddedDatabaseUrl(config.embeddedPostgresPort, 'onboard');
    databaseDescription = `the embedded PostgreSQL of make run (port ${config.embeddedPostgresPort})`;
  } else {
    const dir = join(config.dataDir, 'postgres');
    log.info({ dir }, 'starting embedded PostgreSQL');
    const clusterDir = reachableDataDir(dir);
    progress(
      existsSync(join(clusterDir, 'PG_VERSION'))
        ? `starting embedded PostgreSQL (${clusterDir})...`
        : `starting embedded PostgreSQL: first run, creating its cluster in ${clusterDir} (a few seconds)...`,
    );
    embedded = await startEmbeddedPostgres({
      dataDir: dir,
      port: config.embeddedPostgresPort,
      database: 'onboard',
      onLog: (line) => log.debug({ component: 'postgres' }, line),
    });
    databaseUrl = embedded.url;
    databaseDescription = `embedded PostgreSQL in ${embedded.dataDir} (port ${config.embeddedPostgresPort})`;
  }
  const db = createDb(databaseUrl);
  let localnet: Localnet | undefined;
  let jobs: JobQueue | undefined;
  let http: HttpDrain | undefined;
  let changes: ChangeFeed | undefined;
  let redis: RedisConnection | undefined;
  try {
    const stellarRpcUrls = { ...config.stellarRpcUrls };
    if (config.localnet && worker) {
      stellarRpcUrls.testnet = `http://127.0.0.1:${config.localnet.port}/rpc`;
    } else if (config.localnet) {
      progress(`starting localnet, the local Stellar network (state in ${config.localnet.dataDir})...`);
      localnet = await startLocalnet({
        port: config.localnet.port,
        ledgerCloseMs: config.localnet.ledgerCloseMs,
        dataDir: config.localnet.dataDir,
        log: (msg) => log.debug({ component: 'localnet' }, msg),
      });
      stellarRpcUrls.testnet = localnet.rpcUrl;
    }
    progress('applying database migrations...');
    const migrationsApplied = await migrateToLatest(db);
    jobs = await startJobQueue({ databaseUrl, log, supervise: true });
    // The API's caches hear other processes' changes (a worker serves no requests, so it caches nothing).
    if (!worker) changes = startChangeFeed(databaseUrl, log);
    // The limits' shared store (RATE_LIMIT_STORE=redis): one connection per API process (a worker serves no requests,
    // so it counts nothing). Start-up waits for it briefly so the first requests count in Redis, but never fails on it:
    // while it is unreachable the limits fall back, and readiness says so.
    if (config.redis && !worker) {
      redis = createRedisConnection(config.redis, log);
      if (!(await redis.whenReady(CONNECT_TIMEOUT_MS)))
        log.warn('Redis is not reachable at start: the limits count in this process and PostgreSQL until it is');
    }
    const deps: ServiceDeps = {
      log,
      db,
      clock: systemClock,
      stellarHealth: Object.fromEntries(
        Object.entries(stellarRpcUrls).map(([network, url]) => [network, () => probeRpcHealth(url)]),
      ),
      version: version(),
      startedAt: new Date(),
      limits: config.limits,
      secrets,
      kms,
      mailer,
      sessionSettings: config.sessions,
      stellar: { rpcUrls: stellarRpcUrls, gateways: stellarGateways(stellarRpcUrls, config) },
      funding: config.funding,
      transactions: config.transactions,
      jobs,
      webhooks: config.webhooks,
      sep10: config.sep10,
      oauth: config.oauth,
      dashboard: config.dashboard,
      kyc: config.kyc,
      ramps: config.ramps,
      background: createBackgroundWork(),
      ...(changes ? { changes } : {}),
      ...(redis ? { redis } : {}),
      shuttingDown: () => http?.draining ?? false,
      ...(config.publicUrlConfigured ? { publicUrl: config.publicUrl } : {}),
    };
    deps.activationQueue = new ActivationQueue(deps, config.funding.channels);
    deps.payoutQueue = new PayoutQueue(deps, config.funding.payoutChannels);
    // Before the first request: a write enqueues its jobs in its own transaction, into queues that must exist.
    await createQueues(deps, jobs);
    let server: Server | undefined;
    if (!worker) {
      const app = await buildApp(deps, { document: loadBundledSpec(), trustProxy: config.trustProxy });
      server = await new Promise<Server>((resolve, reject) => {
        // Express 5 calls back with the error when the port cannot be had (in use, not allowed).
        const s = app.listen(config.port, config.host, (err?: Error) => (err ? reject(err) : resolve(s)));
      });
      http = trackRequests(server);
    }
    const port = server ? (server.address() as AddressInfo).port : undefined;
    // Links to this service's own pages (the KYC sandbox) name the port it got when PORT was 0.
    if (!config.publicUrlConfigured && port !== undefined) {
      deps.kyc = { ...config.kyc, baseUrl: `http://${config.host}:${port}` };
      deps.ramps = { ...config.ramps, baseUrl: `http://${config.host}:${port}` };
    }
    const stopWorkers = await startWorkers(deps, jobs, {
      only: jobsToRun(config, worker),
      ...(opts.sponsorScanAfter ? { startAfter: { 'sponsor-balance-scan': opts.sponsorScanAfter } } : {}),
    });
    return {
      url: port === undefined ? '' : `http://${config.host}:${port}`,
      ...(http ? { http } : {}),
      ...(localnet ? { localnet } : {}),
      deps,
      databaseDescription,
      migrationsApplied,
      migrationsTotal: migrations.length,
      // In this order: the requests already running are answered (readiness says 503 meanwhile), then the jobs stop,
      // then the work requests left running finishes, and only then Redis and the pool close: nothing still needs them.
      close: async () => {
        const cutOff = (await http?.drain(REQUESTS_DRAIN_MS)) ?? 0;
        if (cutOff > 0) log.warn({ requests: cutOff }, 'shutdown cut off requests still running after the drain time');
        await settleWithin(stopWorkers(), JOBS_STOP_WAIT_MS);
        await jobs?.stop(JOBS_STOP_WAIT_MS);
        await deps.background?.settle(BACKGROUND_WAIT_MS);
        await changes?.close();
        await redis?.close();
        await db.destroy();
        await mailer.close();
        await localnet?.stop();
        await embedded?.stop();
      },
    };
  } catch (err) {
    await changes?.close();
    await redis?.close();
    await jobs?.stop(0);
    await localnet?.stop();
    await db.destroy();
    await embedded?.stop();
    throw err;
  }
}
