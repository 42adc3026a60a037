// Everything a handler may need, built once in main.ts (tests build their own). No globals, no service locator.
import type { Logger } from 'pino';
import type { Db } from './infra/db/database';
import type { LimitSettings, NetworkName } from './config';
import type { RpcHealth } from './infra/stellar/rpcHealth';
import type { Mailer } from './infra/mail/mailer';
import type { ServiceSecrets } from './infra/secrets/serviceSecret';
import type { SessionSettings } from './domain/sessions/sessions';

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
  /** Keys derived from the service secret (token signing, DPoP nonces, code hashes). */
  secrets: ServiceSecrets;
  /** Outgoing email: dev outbox by default, SMTP when configured. */
  mailer: Mailer;
  /** Session settings (Config.sessions); the defaults when absent. */
  sessionSettings?: SessionSettings;
  /**
   * The public base URL clients address (PUBLIC_URL), when configured: DPoP proofs' `htu` must match it. Without it
   * the request's own Host header is used (development and tests).
   */
  publicUrl?: string;
}
