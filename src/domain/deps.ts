// Everything a handler may need, built once in main.ts (tests build their own). No globals, no service locator.
// This file imports no domain module (it is imported by all of them); what a domain module adds to the context
// (the funding module's activation queue) it declares itself, and the composition root supplies it.
import type { Logger } from 'pino';
import type { Db } from '../infra/db/database';
import type {
  DashboardSettings,
  KycSettings,
  RampsSettings,
  LimitSettings,
  NetworkName,
  OAuthSettings,
  Sep10Settings,
  FundingSettings,
  SessionSettings,
  TransactionSettings,
  WebhookSettings,
} from '../config';
import type { RpcHealth } from '../infra/stellar/rpcHealth';
import type { StellarGateway } from '../infra/stellar/gateway';
import type { Mailer } from '../infra/mail/mailer';
import type { ServiceSecrets } from '../infra/secrets/serviceSecret';
import type { KeyManagement } from '../infra/kms/keyManagement';
import type { JobQueue } from '../infra/jobs/jobQueue';
import type { BackgroundWork } from '../infra/backgroundWork';
import type { ChangeFeed } from '../infra/db/changeFeed';
import type { RedisConnection } from '../infra/redis/redis';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export interface Deps {
  /** Structured logger (pino); request handlers get a child with the request id. */
  log: Logger;
  /** PostgreSQL through knex. */
  db: Db;
  /** Wall clock; tests can pin it. */
  clock: Clock;
  /** Health probe per configured Stellar network (RPC getHealth); a network absent here is not configured. */
  stellarHealth: Partial<Record<NetworkName, () => Promise<RpcHealth>>>;
  /** Service version, reported by /health. */
  version: string;
  /** When the process started, for /health uptime. */
  startedAt: Date;
  /** Per-key rate limit and testnet quota (Config.limits); the defaults when absent. */
  limits?: LimitSettings;
  /**
   * The process's one Redis connection (Config.redis), present only with RATE_LIMIT_STORE=redis: the rate limits and
   * the testnet quota count in it, and readiness reports it.
   */
  redis?: RedisConnection;
  /** Keys derived from the service secret (token signing, DPoP nonces, code hashes). */
  secrets: ServiceSecrets;
  /** Outgoing email: dev outbox by default, SMTP when configured. */
  mailer: Mailer;
  /**
   * Wraps and unwraps wallet data keys (Config.kms): the local master key file, or AWS KMS. Domain code reaches wallet
   * secrets only through src/domain/wallets, which audits every decryption.
   */
  kms: KeyManagement;
  /** Session settings (Config.sessions); the defaults when absent. */
  sessionSettings?: SessionSettings;
  /**
   * The public base URL clients address (PUBLIC_URL), when configured: DPoP proofs' `htu` must match it. Without it
   * the request's own Host header is used (development and tests).
   */
  publicUrl?: string;
  /** The Stellar RPC URL of each configured network (Stellar RPC only, never Horizon); absent: none configured. */
  stellar?: {
    rpcUrls: Partial<Record<NetworkName, string>>;
    /** The chain gateway of each configured network (reads, submissions, friendbot); absent: none configured. */
    gateways?: Partial<Record<NetworkName, StellarGateway>>;
  };
  /** Wallet activation timing (Config.funding); the defaults when absent. */
  funding?: FundingSettings;
  /**
   * The job queue (pg-boss on the same database): a write that causes background work enqueues it inside its own
   * transaction (`send(name, data, { trx })`), so the job exists exactly when the write does.
   */
  jobs: JobQueue;
  /** Webhook delivery settings (Config.webhooks); the defaults when absent. */
  webhooks?: WebhookSettings;
  /** Sponsored transaction settings (Config.transactions); the defaults when absent. */
  transactions?: TransactionSettings;
  /** SEP-10 operator sign-in (Config.sep10); the defaults (`localhost`, testnet) when absent. */
  sep10?: Sep10Settings;
  /** Google and GitHub sign-in (Config.oauth); the public providers and no Dashboard clients when absent. */
  oauth?: OAuthSettings;
  /** The operators' dashboard served at /dashboard (Config.dashboard); the defaults when absent. */
  dashboard?: DashboardSettings;
  /** KYC providers (Config.kyc); no sandbox when absent. */
  kyc?: KycSettings;
  /** Ramp providers (Config.ramps); no sandbox and the providers' public URLs when absent. */
  ramps?: RampsSettings;
  /**
   * Work a request starts without waiting for it; shutdown waits for it before closing the pool. Absent (tests that
   * build their own deps): such work runs untracked.
   */
  background?: BackgroundWork;
  /**
   * Change notifications between the service's processes (PostgreSQL LISTEN/NOTIFY): in-process caches (the gate's
   * API keys) drop what changed elsewhere. Absent: those caches keep nothing and read the database every time.
   */
  changes?: ChangeFeed;
  /** True once the process is shutting down: readiness answers 503 so that a load balancer sends requests elsewhere. */
  shuttingDown?: () => boolean;
}
