// Reads the service configuration from the environment. Every setting has an embedded default so that `make run`
// works on a fresh machine; production sets the URLs.
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { projectRoot } from './paths';

export type NetworkName = 'testnet' | 'mainnet';

/** Per-key limits applied by the gate (src/http/limits.ts). */
export interface LimitSettings {
  /** Requests per API key per minute. */
  perKeyPerMinute: number;
  /**
   * Where the counts live: this process, the service's PostgreSQL, or Redis (Config.redis); the last two are shared
   * by every instance. With `redis` the testnet quota is counted in Redis too (PostgreSQL otherwise).
   */
  store: 'memory' | 'postgres' | 'redis';
  /** Requests per testnet key per UTC day, counted durably in PostgreSQL, or in Redis with the redis store. */
  testnetDailyQuota: number;
}

/** The Redis the limits share (RATE_LIMIT_STORE=redis): REDIS_URL and the prefix of every key (REDIS_KEY_PREFIX). */
export interface RedisSettings {
  /** `redis://[[user]:password@]host[:port][/db]`, or `rediss://` for TLS. May hold a password: never logged. */
  url: string;
  /** Put before every key the service writes, so that deployments (or test runs) can share one Redis. */
  keyPrefix: string;
}

/** SEP-10 operator sign-in (Stellar wallet): what challenges name and which network they are for. */
export interface Sep10Settings {
  /** The domain challenges name: `<homeDomain> auth` and the `web_auth_domain` value (the Dashboard's domain). */
  homeDomain: string;
  /** The network whose passphrase challenges are signed with and whose accounts (signers, thresholds) are read. */
  network: NetworkName;
}

/**
 * Where wallet keys are wrapped (KMS_PROVIDER): `local`, a master key file in the data directory (created on first
 * start, mode 0600), or `aws`, a symmetric AWS KMS key (AWS_KMS_KEY_ID, AWS_REGION, optional AWS_KMS_ENDPOINT;
 * credentials from the AWS SDK's default chain).
 */
/**
 * The bounded cache of unwrapped wallet data keys in front of the key management (src/infra/kms/dataKeyCache.ts):
 * each unwrapped key is used at most `maxUses` times and for at most `maxAgeMs`, at most `maxEntries` at once.
 */
export interface DataKeyCacheSettings {
  /** KMS_DATA_KEY_CACHE_SECONDS (300): longest an unwrapped key is kept; 0 turns the cache off. */
  maxAgeMs: number;
  /** KMS_DATA_KEY_CACHE_MAX_USES (1000): uses of one unwrapped key before it is unwrapped again. */
  maxUses: number;
  /** KMS_DATA_KEY_CACHE_ENTRIES (1000): keys held at once (the least recently used goes first). */
  maxEntries: number;
}

export const DEFAULT_DATA_KEY_CACHE: DataKeyCacheSettings = { maxAgeMs: 300_000, maxUses: 1_000, maxEntries: 1_000 };

export type KmsSettings =
  { provider: 'local'; masterKeyFile: string } | { provider: 'aws'; keyId: string; region: string; endpoint?: string };

/** A client registered at Google or GitHub. */
export interface OAuthClientCredentials {
  clientId: string;
  clientSecret: string;
}

/**
 * Google and GitHub sign-in: where the providers are (other values for tests and self-hosting) and the Dashboard's own
 * clients with the callback URLs it may send (apps' clients are in their settings, in the database).
 */
export interface OAuthSettings {
  /** GOOGLE_ISSUER_URL: the OpenID Connect issuer, discovered through its `/.well-known/openid-configuration`. */
  googleIssuerUrl: string;
  /** GITHUB_OAUTH_URL: serves `/login/oauth/authorize` and `/login/oauth/access_token`. */
  githubOAuthUrl: string;
  /** GITHUB_API_URL: serves `/user` and `/user/emails`. */
  githubApiUrl: string;
  dashboard: {
    /** DASHBOARD_GOOGLE_CLIENT_ID and DASHBOARD_GOOGLE_CLIENT_SECRET; absent: operators cannot use Google. */
    google?: OAuthClientCredentials;
    /** DASHBOARD_GITHUB_CLIENT_ID and DASHBOARD_GITHUB_CLIENT_SECRET; absent: operators cannot use GitHub. */
    github?: OAuthClientCredentials;
    /** DASHBOARD_OAUTH_REDIRECT_URIS: the exact callback URLs the Dashboard may send as `redirectUri`. */
    redirectUris: string[];
  };
}

export const DEFAULT_OAUTH_SETTINGS: OAuthSettings = {
  googleIssuerUrl: 'https://accounts.google.com',
  githubOAuthUrl: 'https://github.com',
  githubApiUrl: 'https://api.github.com',
  dashboard: { redirectUris: [] },
};

/** Wallet activation (the funding flow in src/domain/wallets/funding.ts). */
export interface FundingSettings {
  /**
   * ACTIVATION_TIMEOUT_SECONDS (30, at least 15): how long a fund request waits for the ledger. The activation
   * transaction is valid for this long, so once it has passed unapplied it can never apply and the recovery loop may
   * rebuild it. Validators refuse a transaction that may expire within the next two ledgers (10 s at 5 s a ledger).
   */
  activationTimeoutSeconds: number;
  /** ACTIVATION_RETRY_SECONDS (10): how often each instance looks for unfinished activations to reconcile or retry. */
  retryIntervalSeconds: number;
  /**
   * ACTIVATION_CHANNELS (0): channel accounts per funding wallet, so that several activation batches land in one
   * ledger. 0: the funding wallet is the source (one batch of up to 18 wallets per ledger). Each channel adds a batch
   * per ledger, locks 1 XLM of reserve in the funding wallet and holds a 2 XLM fee float.
   */
  channels: number;
  /**
   * DISTRIBUTION_CHANNELS (10): channel accounts per distribution wallet for claims and pushes, at least 1. Each lets
   * one more transaction of up to 100 payments into a ledger (10 fill a ledger of 1,000 operations); each locks 1 XLM
   * of reserve in the distribution wallet and holds a 2 XLM fee float. Created on first use.
   */
  payoutChannels: number;
}

export const DEFAULT_FUNDING_SETTINGS: FundingSettings = {
  activationTimeoutSeconds: 30,
  retryIntervalSeconds: 10,
  channels: 0,
  payoutChannels: 10,
};

/** Webhook delivery (src/domain/webhooks). */
export interface WebhookSettings {
  /** WEBHOOK_RETRY_SCHEDULE (0,60,600,3600,86400): seconds before each attempt; its length is the number of attempts. */
  retryScheduleSeconds: number[];
  /** WEBHOOK_TIMEOUT_MS (10000): how long an attempt waits for the answer. */
  timeoutMs: number;
  /**
   * WEBHOOK_ALLOW_INSECURE (off): development only: http URLs and loopback or private addresses are accepted (a
   * receiver on the developer's machine). Never in production: it lets app owners make the service call inside the
   * network.
   */
  allowInsecure: boolean;
}

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = {
  retryScheduleSeconds: [0, 60, 600, 3600, 86400],
  timeoutMs: 10_000,
  allowInsecure: false,
};

/** Sponsored transactions (src/domain/transactions). */
export interface TransactionSettings {
  /**
   * TX_CONFIRM_WAIT_MS (5000): how long submitTransaction and runTransaction wait for the ledger before answering
   * `pending` (the confirmation worker finishes the record either way). 0: answer `pending` right after submission.
   */
  confirmWaitMs: number;
  /**
   * TX_CONFIRM_INTERVAL_MS (1000): how often the confirmation worker looks at submitted transactions (and sends the ones
   * whose turn came: a wallet's transactions go one per ledger).
   */
  confirmIntervalMs: number;
  /** LEDGER_FOLLOWER (on): read every ledger's transactions to fill histories and payment.received events. */
  ledgerFollower: boolean;
}

export const DEFAULT_TRANSACTION_SETTINGS: TransactionSettings = {
  confirmWaitMs: 5000,
  confirmIntervalMs: 1000,
  ledgerFollower: true,
};

export interface SessionSettings {
  /** How long a rotated refresh token still yields its successor (concurrent refreshes), in seconds. */
  refreshReuseGraceSeconds: number;
}

/** The operators' dashboard (a built Vite + React app) served at /dashboard (src/http/dashboard.ts). */
export interface DashboardSettings {
  /** DASHBOARD_DIR (default `<projectRoot>/dashboard/dist`, what `npm run dashboard:build` writes): the built app. */
  dir: string;
  /**
   * DEV_OUTBOX_VIEW: `GET /dashboard/dev/outbox?to=<email>` shows the dev outbox's newest messages to an address, so
   * the sign-in page can show a developer their code. Anyone who can reach it can read any address's sign-in code and
   * so sign in as anyone: on by default only when mail goes to the dev outbox (no SMTP_URL) and the service listens on
   * a loopback address (and PUBLIC_URL, when set, names one too, so no proxy puts it on the network). It is only ever
   * served while the dev outbox is the transport, whatever this says.
   */
  devOutboxView: boolean;
  /**
   * Whether the dashboard offers a local development Stellar signer for SEP-10 sign-in: SEP-10 is on testnet and
   * testnet is the in-process localnet (whose accounts are throwaway).
   */
  devSigner: boolean;
}

/** KYC providers (src/domain/kyc). */
export interface KycSettings {
  /**
   * KYC_SANDBOX: offer the `sandbox` KYC provider to testnet apps: a page of this service where the developer approves
   * or rejects each verification, so every KYC path can be tried offline. On by default when testnet is the
   * in-process localnet (a developer's machine); never offered to mainnet apps, whatever this says.
   */
  sandbox: boolean;
  /** Where the sandbox's page is reached (PUBLIC_URL or the listening address). */
  baseUrl: string;
}

/** Fiat on- and off-ramp providers (src/domain/ramps). */
export interface RampsSettings {
  /**
   * RAMPS_SANDBOX: offer the `sandbox` ramp provider to testnet apps: ramps that settle on the network against a local
   * fiat ledger, the deposit confirmed on a page of this service. On by default when testnet is the in-process
   * localnet; never offered to mainnet apps.
   */
  sandbox: boolean;
  /** Where the sandbox's page is reached (PUBLIC_URL or the listening address). */
  baseUrl: string;
  /** BRIDGE_API_URL: Bridge's API (https://api.bridge.xyz); tests point it at a local stand-in. */
  bridgeApiUrl: string;
  /** ETHERFUSE_API_URL: Etherfuse's API (https://api.etherfuse.com); tests point it at a local stand-in. */
  etherfuseApiUrl: string;
  /**
   * RAMPS_ALLOW_INSECURE: development only: provider URLs over http and on loopback or private addresses (a local
   * anchor). Off by default: anchors are reached over https at public addresses only.
   */
  allowInsecure: boolean;
  /** RAMPS_TIMEOUT_MS: how long one request to a provider may take before it counts as an upstream failure. */
  timeoutMs: number;
}

export const DEFAULT_RAMPS_SETTINGS: Omit<RampsSettings, 'sandbox' | 'baseUrl'> = {
  bridgeApiUrl: 'https://api.bridge.xyz',
  etherfuseApiUrl: 'https://api.etherfuse.com',
  allowInsecure: false,
  timeoutMs: 10_000,
};

/** Off unless configured: what a Deps without dashboard settings (a bare app in tests) serves. */
export const DEFAULT_DASHBOARD_SETTINGS: DashboardSettings = {
  dir: join(projectRoot, 'dashboard/dist'),
  devOutboxView: false,
  devSigner: false,
};

export interface Config {
  /** Address and port the HTTP server listens on. */
  host: string;
  port: number;
  /** PostgreSQL URL; when absent, an embedded PostgreSQL is started with its data in `<dataDir>/postgres`. */
  databaseUrl: string | undefined;
  /** Port of the embedded PostgreSQL (only used without databaseUrl). */
  embeddedPostgresPort: number;
  /** Where local state lives: embedded database, localnet, service secret, local master key, mail outbox. */
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
   * TRUST_PROXY: which hops in front of the service may name the client's address in X-Forwarded-For (Express's
   * `trust proxy`): false (the default: the connection's address is the client's), a number of hops, or addresses,
   * CIDR ranges and the names loopback, linklocal, uniquelocal. Behind a load balancer the per-address limits (sign-in
   * abuse limits, anonymous callers) need it, or every client shares the balancer's address.
   */
  trustProxy: TrustProxy;
  /**
   * The in-process local ledger that plays testnet when no testnet RPC URL is set (LOCALNET=off disables it).
   * undefined when disabled or when a testnet RPC URL is configured.
   */
  localnet: { port: number; ledgerCloseMs: number | 'manual'; dataDir: string } | undefined;
  /** Seed a demo operator, app and keys on the first run against an empty database (DEMO_SEED=off disables). */
  demoSeed: boolean;
  /**
   * Per-key limits: RATE_LIMIT_PER_KEY_PER_MINUTE (600), RATE_LIMIT_STORE (memory | postgres | redis; the last two
   * shared by every instance), TESTNET_DAILY_QUOTA (1000 requests per testnet key per UTC day).
   */
  limits: LimitSettings;
  /** REDIS_URL and REDIS_KEY_PREFIX, read only with RATE_LIMIT_STORE=redis (which requires REDIS_URL); else undefined. */
  redis: RedisSettings | undefined;
  /** REFRESH_REUSE_GRACE_SECONDS (10): a rotated refresh token still yields its successor this long (concurrent refreshes). */
  sessions: SessionSettings;
  /** ONBOARD_SECRET (hex or base64url, >= 32 bytes); unset = `<dataDir>/service-secret`, created on first start. */
  serviceSecret: string | undefined;
  /** Outgoing mail: SMTP_URL (unset = the dev outbox in `<dataDir>/outbox`) and MAIL_FROM. */
  mail: { smtpUrl: string | undefined; from: string; outboxDir: string };
  /** SEP10_HOME_DOMAIN (default: PUBLIC_URL's host, else `localhost`) and SEP10_NETWORK (testnet | mainnet, default testnet). */
  sep10: Sep10Settings;
  /** Google and GitHub sign-in: provider endpoints and the Dashboard's own clients (OAuthSettings). */
  oauth: OAuthSettings;
  /** Key management for wallet keys (KmsSettings). */
  kms: KmsSettings;
  /** The cache of unwrapped data keys in front of it (KMS_DATA_KEY_CACHE_*). */
  dataKeyCache: DataKeyCacheSettings;
  /** KYC providers (src/domain/kyc): KycSettings. */
  kyc: KycSettings;
  /** Ramp providers (src/domain/ramps): RampsSettings. */
  ramps: RampsSettings;
  /** STELLAR_TESTNET_FRIENDBOT_URL: friendbot for an external testnet; default: the one its RPC advertises (getNetwork). */
  testnetFriendbotUrl: string | undefined;
  /** Wallet activation timing (FundingSettings). */
  funding: FundingSettings;
  /** Sponsored transactions (TransactionSettings). */
  transactions: TransactionSettings;
  /**
   * SPONSOR_BALANCE_SCAN (on): every 10 minutes, read each app wallet's balance and record `sponsor.balance.low`
   * (again every 24 h) for those at or below their minimum.
   */
  sponsorBalanceScan: boolean;
  /**
   * WORKERS (on): run the background jobs (src/jobs/registry.ts) in this process too. `off` for an API-only process
   * when `npm run worker` processes run them against the same database.
   */
  workers: boolean;
  /** Webhook delivery (WebhookSettings). */
  webhooks: WebhookSettings;
  /** The operators' dashboard at /dashboard (DashboardSettings). */
  dashboard: DashboardSettings;
}

export class ConfigError extends Error {}

/** An `on`/`off` switch; anything else is refused. */
function onOff(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw !== 'on' && raw !== 'off') throw new ConfigError(`${name} must be on or off, got "${raw}"`);
  return raw === 'on';
}

export type TrustProxy = false | number | string[];

const TRUST_PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** One TRUST_PROXY entry: an IPv4/IPv6 address, such an address with a /prefix, or one of Express's names. */
function isTrustProxyEntry(entry: string): boolean {
  if (TRUST_PROXY_NAMES.has(entry)) return true;
  const [address, prefix, more] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || more !== undefined) return false;
  if (prefix === undefined) return true;
  const bits = Number(prefix);
  return /^\d{1,3}$/.test(prefix) && bits <= (family === 4 ? 32 : 128);
}

function trustProxyFrom(env: NodeJS.ProcessEnv): TrustProxy {
  const raw = env.TRUST_PROXY?.trim();
  if (!raw || raw === 'off' || raw === 'false') return false;
  if (/^\d+$/.test(raw)) return intFrom(env, 'TRUST_PROXY', 0, 1, 10);
  const entries = raw.split(',').map((e) => e.trim());
  const bad = entries.filter((e) => !isTrustProxyEntry(e));
  if (bad.length > 0)
    throw new ConfigError(
      `TRUST_PROXY must be off, a number of hops (1-10), or comma-separated addresses, CIDR ranges, loopback, ` +
        `linklocal or uniquelocal; "${bad[0]}" is none of these`,
    );
  return entries;
}

function intFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

/** A comma-separated list of 1 to 10 delays in seconds (0 to 86400 each). */
function scheduleFrom(env: NodeJS.ProcessEnv, name: string, fallback: number[]): number[] {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const parts = raw.split(',').map((p) => p.trim());
  const values = parts.map(Number);
  if (parts.length > 10 || values.some((v, i) => parts[i] === '' || !Number.isInteger(v) || v < 0 || v > 86_400))
    throw new ConfigError(`${name} must be 1 to 10 comma-separated whole seconds (0 to 86400 each), got "${raw}"`);
  return values;
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

/** The Redis of RATE_LIMIT_STORE=redis. The URL may hold a password, so no message repeats it. */
function redisFrom(env: NodeJS.ProcessEnv): RedisSettings {
  const url = env.REDIS_URL;
  const form = 'redis://[[user]:password@]host[:port][/db] (or rediss:// for TLS)';
  if (!url) throw new ConfigError(`RATE_LIMIT_STORE=redis needs REDIS_URL: ${form}`);
  if (!URL.canParse(url)) throw new ConfigError(`REDIS_URL must be a URL of the form ${form}`);
  const parsed = new URL(url);
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:')
    throw new ConfigError(`REDIS_URL must be a redis:// or rediss:// URL, got a ${parsed.protocol.slice(0, 20)} URL`);
  if (!parsed.hostname || !/^(\/\d{0,5})?$/.test(parsed.pathname) || parsed.search || parsed.hash)
    throw new ConfigError(`REDIS_URL must be of the form ${form}: a host, and at most a database number as its path`);
  const keyPrefix = env.REDIS_KEY_PREFIX ?? 'onboard:';
  if (!/^[A-Za-z0-9:_.-]{1,64}$/.test(keyPrefix))
    throw new ConfigError(
      `REDIS_KEY_PREFIX must be 1 to 64 letters, digits or any of : _ . - (e.g. "onboard:"), got "${keyPrefix}"`,
    );
  return { url, keyPrefix };
}

function smtpUrlFrom(env: NodeJS.ProcessEnv): string | undefined {
  const url = urlFrom(env, 'SMTP_URL');
  if (url && !/^smtps?:$/.test(new URL(url).protocol))
    throw new ConfigError(`SMTP_URL must be an smtp:// or smtps:// URL`);
  return url;
}

/** A manageData name holds at most 64 bytes, and the first operation's name is `<home domain> auth`. */
const MAX_HOME_DOMAIN_LENGTH = 64 - ' auth'.length;

function sep10From(env: NodeJS.ProcessEnv): Sep10Settings {
  const publicUrl = urlFrom(env, 'PUBLIC_URL');
  const homeDomain = env.SEP10_HOME_DOMAIN || (publicUrl ? new URL(publicUrl).host : 'localhost');
  if (!/^[A-Za-z0-9.-]+(:\d{1,5})?$/.test(homeDomain) || homeDomain.length > MAX_HOME_DOMAIN_LENGTH) {
    throw new ConfigError(
      `SEP10_HOME_DOMAIN must be a domain name (optionally with :port) of at most ${MAX_HOME_DOMAIN_LENGTH} characters, got "${homeDomain}"`,
    );
  }
  const network = env.SEP10_NETWORK || 'testnet';
  if (network !== 'testnet' && network !== 'mainnet')
    throw new ConfigError(`SEP10_NETWORK must be testnet or mainnet, got "${network}"`);
  return { homeDomain, network };
}

function kmsFrom(env: NodeJS.ProcessEnv, dataDir: string): KmsSettings {
  const provider = env.KMS_PROVIDER || 'local';
  if (provider === 'local') return { provider, masterKeyFile: join(dataDir, 'master-key') };
  if (provider !== 'aws') throw new ConfigError(`KMS_PROVIDER must be local or aws, got "${provider}"`);
  if (!env.AWS_KMS_KEY_ID)
    throw new ConfigError('KMS_PROVIDER=aws needs AWS_KMS_KEY_ID (the key id, ARN or alias of a symmetric KMS key)');
  if (!env.AWS_REGION) throw new ConfigError('KMS_PROVIDER=aws needs AWS_REGION');
  const endpoint = urlFrom(env, 'AWS_KMS_ENDPOINT');
  return { provider, keyId: env.AWS_KMS_KEY_ID, region: env.AWS_REGION, ...(endpoint ? { endpoint } : {}) };
}

function oauthClientFrom(env: NodeJS.ProcessEnv, provider: 'GOOGLE' | 'GITHUB'): OAuthClientCredentials | undefined {
  const idName = `DASHBOARD_${provider}_CLIENT_ID`;
  const secretName = `DASHBOARD_${provider}_CLIENT_SECRET`;
  const clientId = env[idName];
  const clientSecret = env[secretName];
  if (!clientId && !clientSecret) return undefined;
  if (!clientId || !clientSecret) throw new ConfigError(`${idName} and ${secretName} must be set together`);
  return { clientId, clientSecret };
}

function oauthFrom(env: NodeJS.ProcessEnv): OAuthSettings {
  // Callbacks are compared exactly with what the Dashboard sends, so each must be a complete http(s) URL.
  const redirectUris = (env.DASHBOARD_OAUTH_REDIRECT_URIS ?? '').split(/[\s,]+/).filter(Boolean);
  for (const uri of redirectUris) {
    if (!URL.canParse(uri) || !/^https?:$/.test(new URL(uri).protocol) || uri.includes('#')) {
      throw new ConfigError(
        `DASHBOARD_OAUTH_REDIRECT_URIS must be http(s) URLs without fragment, separated by commas, got "${uri}"`,
      );
    }
  }
  const google = oauthClientFrom(env, 'GOOGLE');
  const github = oauthClientFrom(env, 'GITHUB');
  return {
    googleIssuerUrl: urlFrom(env, 'GOOGLE_ISSUER_URL') ?? DEFAULT_OAUTH_SETTINGS.googleIssuerUrl,
    githubOAuthUrl: urlFrom(env, 'GITHUB_OAUTH_URL') ?? DEFAULT_OAUTH_SETTINGS.githubOAuthUrl,
    githubApiUrl: urlFrom(env, 'GITHUB_API_URL') ?? DEFAULT_OAUTH_SETTINGS.githubApiUrl,
    dashboard: { ...(google ? { google } : {}), ...(github ? { github } : {}), redirectUris },
  };
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', '[::1]', 'localhost']);

/** DEV_OUTBOX_VIEW, whose default is on only on a developer's machine (see DashboardSettings.devOutboxView). */
function devOutboxViewFrom(env: NodeJS.ProcessEnv, host: string, smtpUrl: string | undefined): boolean {
  const publicUrl = urlFrom(env, 'PUBLIC_URL');
  const local = !smtpUrl && LOOPBACK_HOSTS.has(host) && (!publicUrl || LOOPBACK_HOSTS.has(new URL(publicUrl).hostname));
  return onOff(env, 'DEV_OUTBOX_VIEW', local);
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
  if (env.LOCALNET && !['on', 'off'].includes(env.LOCALNET))
    throw new ConfigError(`LOCALNET must be on or off, got "${env.LOCALNET}"`);
  const ledgerSeconds = env.LOCALNET_LEDGER_SECONDS;
  if (ledgerSeconds && ledgerSeconds !== 'manual' && !(Number(ledgerSeconds) > 0 && Number(ledgerSeconds) <= 60)) {
    throw new ConfigError(
      `LOCALNET_LEDGER_SECONDS must be a number of seconds (0-60] or "manual", got "${ledgerSeconds}"`,
    );
  }
  const dataDir = resolve(env.ONBOARD_DATA_DIR || '.data');
  if (env.DEMO_SEED && !['on', 'off'].includes(env.DEMO_SEED))
    throw new ConfigError(`DEMO_SEED must be on or off, got "${env.DEMO_SEED}"`);
  const store = env.RATE_LIMIT_STORE || 'memory';
  const smtpUrl = smtpUrlFrom(env);
  const sep10 = sep10From(env);
  const localnet = localnetEnabled
    ? {
        port: intFrom(env, 'LOCALNET_PORT', 8000, 0, 65535),
        ledgerCloseMs: ledgerSeconds === 'manual' ? ('manual' as const) : Math.round(Number(ledgerSeconds || 5) * 1000),
        dataDir: join(dataDir, 'localnet'),
      }
    : undefined;
  if (store !== 'memory' && store !== 'postgres' && store !== 'redis')
    throw new ConfigError(`RATE_LIMIT_STORE must be memory, postgres or redis, got "${store}"`);
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
    trustProxy: trustProxyFrom(env),
    demoSeed: env.DEMO_SEED !== 'off',
    localnet,
    limits: {
      perKeyPerMinute: intFrom(env, 'RATE_LIMIT_PER_KEY_PER_MINUTE', 600, 1, 1_000_000_000),
      store,
      testnetDailyQuota: intFrom(env, 'TESTNET_DAILY_QUOTA', 1000, 1, 1_000_000_000),
    },
    redis: store === 'redis' ? redisFrom(env) : undefined,
    sessions: { refreshReuseGraceSeconds: intFrom(env, 'REFRESH_REUSE_GRACE_SECONDS', 10, 0, 300) },
    serviceSecret: env.ONBOARD_SECRET || undefined,
    mail: {
      smtpUrl,
      from: env.MAIL_FROM || 'Onboard <no-reply@onboard.local>',
      outboxDir: join(dataDir, 'outbox'),
    },
    sep10,
    oauth: oauthFrom(env),
    kms: kmsFrom(env, dataDir),
    dataKeyCache: {
      maxAgeMs: intFrom(env, 'KMS_DATA_KEY_CACHE_SECONDS', DEFAULT_DATA_KEY_CACHE.maxAgeMs / 1000, 0, 3600) * 1000,
      maxUses: intFrom(env, 'KMS_DATA_KEY_CACHE_MAX_USES', DEFAULT_DATA_KEY_CACHE.maxUses, 1, 1_000_000),
      maxEntries: intFrom(env, 'KMS_DATA_KEY_CACHE_ENTRIES', DEFAULT_DATA_KEY_CACHE.maxEntries, 1, 1_000_000),
    },
    testnetFriendbotUrl: urlFrom(env, 'STELLAR_TESTNET_FRIENDBOT_URL'),
    funding: {
      activationTimeoutSeconds: intFrom(
        env,
        'ACTIVATION_TIMEOUT_SECONDS',
        DEFAULT_FUNDING_SETTINGS.activationTimeoutSeconds,
        15,
        600,
      ),
      retryIntervalSeconds: intFrom(
        env,
        'ACTIVATION_RETRY_SECONDS',
        DEFAULT_FUNDING_SETTINGS.retryIntervalSeconds,
        1,
        3600,
      ),
      channels: intFrom(env, 'ACTIVATION_CHANNELS', DEFAULT_FUNDING_SETTINGS.channels, 0, 20),
      payoutChannels: intFrom(env, 'DISTRIBUTION_CHANNELS', DEFAULT_FUNDING_SETTINGS.payoutChannels, 1, 20),
    },
    transactions: {
      confirmWaitMs: intFrom(env, 'TX_CONFIRM_WAIT_MS', DEFAULT_TRANSACTION_SETTINGS.confirmWaitMs, 0, 60_000),
      confirmIntervalMs: intFrom(
        env,
        'TX_CONFIRM_INTERVAL_MS',
        DEFAULT_TRANSACTION_SETTINGS.confirmIntervalMs,
        50,
        60_000,
      ),
      ledgerFollower: onOff(env, 'LEDGER_FOLLOWER', DEFAULT_TRANSACTION_SETTINGS.ledgerFollower),
    },
    sponsorBalanceScan: onOff(env, 'SPONSOR_BALANCE_SCAN', true),
    workers: onOff(env, 'WORKERS', true),
    webhooks: {
      retryScheduleSeconds: scheduleFrom(env, 'WEBHOOK_RETRY_SCHEDULE', DEFAULT_WEBHOOK_SETTINGS.retryScheduleSeconds),
      timeoutMs: intFrom(env, 'WEBHOOK_TIMEOUT_MS', DEFAULT_WEBHOOK_SETTINGS.timeoutMs, 100, 30_000),
      allowInsecure: onOff(env, 'WEBHOOK_ALLOW_INSECURE', DEFAULT_WEBHOOK_SETTINGS.allowInsecure),
    },
    kyc: {
      sandbox: onOff(env, 'KYC_SANDBOX', localnet !== undefined),
      baseUrl: env.PUBLIC_URL || `http://${host}:${port}`,
    },
    ramps: {
      sandbox: onOff(env, 'RAMPS_SANDBOX', localnet !== undefined),
      baseUrl: env.PUBLIC_URL || `http://${host}:${port}`,
      bridgeApiUrl: env.BRIDGE_API_URL || DEFAULT_RAMPS_SETTINGS.bridgeApiUrl,
      etherfuseApiUrl: env.ETHERFUSE_API_URL || DEFAULT_RAMPS_SETTINGS.etherfuseApiUrl,
      allowInsecure: onOff(env, 'RAMPS_ALLOW_INSECURE', DEFAULT_RAMPS_SETTINGS.allowInsecure),
      timeoutMs: intFrom(env, 'RAMPS_TIMEOUT_MS', DEFAULT_RAMPS_SETTINGS.timeoutMs, 100, 60_000),
    },
    dashboard: {
      dir: env.DASHBOARD_DIR ? resolve(env.DASHBOARD_DIR) : DEFAULT_DASHBOARD_SETTINGS.dir,
      devOutboxView: devOutboxViewFrom(env, host, smtpUrl),
      devSigner: sep10.network === 'testnet' && localnet !== undefined,
    },
  };
}
