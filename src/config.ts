// Reads the service configuration from the environment. Every setting has an embedded default so that `make run`
// works on a fresh machine; production sets the URLs.
import { join, resolve } from 'node:path';

export type NetworkName = 'testnet' | 'mainnet';

/** Per-key limits applied by the gate (src/http/limits.ts). */
export interface LimitSettings {
  /** Requests per API key per minute. */
  perKeyPerMinute: number;
  /** Where the per-minute counts live: this process, or the service's PostgreSQL (shared by all instances). */
  store: 'memory' | 'postgres';
  /** Requests per testnet key per UTC day, counted durably in PostgreSQL. */
  testnetDailyQuota: number;
}

export interface Config {
  /** Address and port the HTTP server listens on. */
  host: string;
  port: number;
  /** PostgreSQL URL; when absent, an embedded PostgreSQL is started with its data in `<dataDir>/postgres`. */
  databaseUrl: string | undefined;
  /** Port of the embedded PostgreSQL (only used without databaseUrl). */
  embeddedPostgresPort: number;
  /** Where local state lives (embedded database, and later the local master key and the mail outbox). */
  dataDir: string;
  /** pino level: fatal, error, warn, info, debug, trace, silent. */
  logLevel: string;
  /** Stellar RPC URL per network; a network without one is reported as not configured. */
  stellarRpcUrls: Partial<Record<NetworkName, string>>;
  /** Public base URL printed in the banner and used in links. */
  publicUrl: string;
  /** Whether PUBLIC_URL was set: only then do DPoP proofs' `htu` have to name it (else the request's Host is used). */
  publicUrlConfigured: boolean;
  /**
   * The in-process local ledger that plays testnet when no testnet RPC URL is set (LOCALNET=off disables it).
   * undefined when disabled or when a testnet RPC URL is configured.
   */
  localnet: { port: number; ledgerCloseMs: number | 'manual'; dataDir: string } | undefined;
  /** Seed a demo operator, app and keys on the first run against an empty database (DEMO_SEED=off disables). */
  demoSeed: boolean;
  /**
   * Per-key limits: RATE_LIMIT_PER_KEY_PER_MINUTE (600), RATE_LIMIT_STORE (memory | postgres, shared by every
   * instance on the same database), TESTNET_DAILY_QUOTA (1000 requests per testnet key per UTC day).
   */
  limits: LimitSettings;
  /** REFRESH_REUSE_GRACE_SECONDS (10): a rotated refresh token still yields its successor this long (concurrent refreshes). */
  sessions: { refreshReuseGraceSeconds: number };
  /** ONBOARD_SECRET (hex or base64url, >= 32 bytes); unset = `<dataDir>/service-secret`, created on first start. */
  serviceSecret: string | undefined;
  /** Outgoing mail: SMTP_URL (unset = the dev outbox in `<dataDir>/outbox`) and MAIL_FROM. */
  mail: { smtpUrl: string | undefined; from: string; outboxDir: string };
}

export class ConfigError extends Error {}

function intFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

function urlFrom(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  if (!raw) return undefined;
  try {
    new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${raw}"`);
  }
  return raw;
}

function smtpUrlFrom(env: NodeJS.ProcessEnv): string | undefined {
  const url = urlFrom(env, 'SMTP_URL');
  if (url && !/^smtps?:$/.test(new URL(url).protocol)) throw new ConfigError(`SMTP_URL must be an smtp:// or smtps:// URL`);
  return url;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const host = env.HOST || '127.0.0.1';
  const port = intFrom(env, 'PORT', 8080, 0, 65535);
  const stellarRpcUrls: Partial<Record<NetworkName, string>> = {};
  const testnet = urlFrom(env, 'STELLAR_TESTNET_RPC_URL');
  const mainnet = urlFrom(env, 'STELLAR_MAINNET_RPC_URL');
  if (testnet) stellarRpcUrls.testnet = testnet;
  if (mainnet) stellarRpcUrls.mainnet = mainnet;
  const localnetEnabled = !testnet && (env.LOCALNET ?? 'on') !== 'off';
  if (env.LOCALNET && !['on', 'off'].includes(env.LOCALNET)) throw new ConfigError(`LOCALNET must be on or off, got "${env.LOCALNET}"`);
  const ledgerSeconds = env.LOCALNET_LEDGER_SECONDS;
  if (ledgerSeconds && ledgerSeconds !== 'manual' && !(Number(ledgerSeconds) > 0 && Number(ledgerSeconds) <= 60)) {
    throw new ConfigError(`LOCALNET_LEDGER_SECONDS must be a number of seconds (0-60] or "manual", got "${ledgerSeconds}"`);
  }
  const dataDir = resolve(env.ONBOARD_DATA_DIR || '.data');
  if (env.DEMO_SEED && !['on', 'off'].includes(env.DEMO_SEED)) throw new ConfigError(`DEMO_SEED must be on or off, got "${env.DEMO_SEED}"`);
  const store = env.RATE_LIMIT_STORE || 'memory';
  if (store !== 'memory' && store !== 'postgres') throw new ConfigError(`RATE_LIMIT_STORE must be memory or postgres, got "${store}"`);
  return {
    host,
    port,
    databaseUrl: urlFrom(env, 'DATABASE_URL'),
    embeddedPostgresPort: intFrom(env, 'EMBEDDED_PG_PORT', 54329, 1024, 65535),
    dataDir,
    logLevel: env.LOG_LEVEL || 'info',
    stellarRpcUrls,
    publicUrl: env.PUBLIC_URL || `http://${host}:${port}`,
    publicUrlConfigured: Boolean(env.PUBLIC_URL),
    demoSeed: env.DEMO_SEED !== 'off',
    localnet: localnetEnabled
      ? {
          port: intFrom(env, 'LOCALNET_PORT', 8000, 0, 65535),
          ledgerCloseMs: ledgerSeconds === 'manual' ? 'manual' : Math.round(Number(ledgerSeconds || 5) * 1000),
          dataDir: join(dataDir, 'localnet'),
        }
      : undefined,
    limits: {
      perKeyPerMinute: intFrom(env, 'RATE_LIMIT_PER_KEY_PER_MINUTE', 600, 1, 1_000_000_000),
      store,
      testnetDailyQuota: intFrom(env, 'TESTNET_DAILY_QUOTA', 1000, 1, 1_000_000_000),
    },
    sessions: { refreshReuseGraceSeconds: intFrom(env, 'REFRESH_REUSE_GRACE_SECONDS', 10, 0, 300) },
    serviceSecret: env.ONBOARD_SECRET || undefined,
    mail: {
      smtpUrl: smtpUrlFrom(env),
      from: env.MAIL_FROM || 'Onboard <no-reply@onboard.local>',
      outboxDir: join(dataDir, 'outbox'),
    },
  };
}
