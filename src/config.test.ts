import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { ConfigError, loadConfig } from './config';
import { projectRoot } from './paths';

test('embedded defaults: port 8080, no database URL, localnet playing testnet every 5 s', () => {
  const c = loadConfig({});
  assert.equal(c.port, 8080);
  assert.equal(c.databaseUrl, undefined);
  assert.deepEqual(c.stellarRpcUrls, {});
  assert.equal(c.localnet?.port, 8000);
  assert.equal(c.localnet?.ledgerCloseMs, 5000);
  assert.match(c.localnet?.dataDir ?? '', /\.data\/localnet$/);
  assert.equal(c.demoSeed, true);
  assert.equal(loadConfig({ DEMO_SEED: 'off' }).demoSeed, false);
});

test('a testnet RPC URL or LOCALNET=off turns localnet off', () => {
  assert.equal(loadConfig({ STELLAR_TESTNET_RPC_URL: 'https://soroban-testnet.stellar.org' }).localnet, undefined);
  assert.equal(loadConfig({ LOCALNET: 'off' }).localnet, undefined);
  assert.equal(loadConfig({ LOCALNET_LEDGER_SECONDS: 'manual' }).localnet?.ledgerCloseMs, 'manual');
  assert.equal(loadConfig({ LOCALNET_LEDGER_SECONDS: '0.5' }).localnet?.ledgerCloseMs, 500);
});

test('bad values stop start-up with a clear message', () => {
  assert.throws(
    () => loadConfig({ PORT: 'abc' }),
    (e: unknown) => e instanceof ConfigError && /PORT must be an integer/.test(e.message),
  );
  assert.throws(() => loadConfig({ DATABASE_URL: 'not a url' }), ConfigError);
  assert.throws(() => loadConfig({ LOCALNET: 'maybe' }), ConfigError);
  assert.throws(() => loadConfig({ DEMO_SEED: 'yes' }), ConfigError);
  assert.throws(() => loadConfig({ LOCALNET_LEDGER_SECONDS: '-1' }), ConfigError);
});

test('limits: 600 per key per minute in memory and 1,000 testnet requests per UTC day by default; configurable', () => {
  assert.deepEqual(loadConfig({}).limits, { perKeyPerMinute: 600, store: 'memory', testnetDailyQuota: 1000 });
  assert.deepEqual(
    loadConfig({ RATE_LIMIT_PER_KEY_PER_MINUTE: '5', RATE_LIMIT_STORE: 'postgres', TESTNET_DAILY_QUOTA: '30' }).limits,
    {
      perKeyPerMinute: 5,
      store: 'postgres',
      testnetDailyQuota: 30,
    },
  );
  assert.throws(() => loadConfig({ RATE_LIMIT_STORE: 'valkey' }), ConfigError);
  assert.throws(() => loadConfig({ RATE_LIMIT_PER_KEY_PER_MINUTE: '0' }), ConfigError);
  assert.throws(() => loadConfig({ TESTNET_DAILY_QUOTA: '-1' }), ConfigError);
});

test('the redis store: REDIS_URL (redis:// or rediss://) and a key prefix; read only with RATE_LIMIT_STORE=redis', () => {
  const c = loadConfig({ RATE_LIMIT_STORE: 'redis', REDIS_URL: 'redis://10.0.0.5:6380/3' });
  assert.equal(c.limits.store, 'redis');
  assert.deepEqual(c.redis, { url: 'redis://10.0.0.5:6380/3', keyPrefix: 'onboard:' });
  assert.deepEqual(
    loadConfig({ RATE_LIMIT_STORE: 'redis', REDIS_URL: 'rediss://:pw@cache.example.com', REDIS_KEY_PREFIX: 'prod:' })
      .redis,
    { url: 'rediss://:pw@cache.example.com', keyPrefix: 'prod:' },
  );
  // Memory stays the default, and a REDIS_URL the store does not use is neither read nor checked.
  assert.equal(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).redis, undefined);
  assert.equal(loadConfig({ REDIS_URL: 'not a url', RATE_LIMIT_STORE: 'postgres' }).redis, undefined);
});

test('the redis store refuses to start without a usable REDIS_URL, and never repeats the URL (it may hold a password)', () => {
  const fails = (env: Record<string, string>, message: RegExp) =>
    assert.throws(
      () => loadConfig({ RATE_LIMIT_STORE: 'redis', ...env }),
      (e: unknown) => e instanceof ConfigError && message.test(e.message) && !e.message.includes('secretpw'),
      JSON.stringify(env),
    );
  fails({}, /RATE_LIMIT_STORE=redis needs REDIS_URL/);
  fails({ REDIS_URL: '' }, /RATE_LIMIT_STORE=redis needs REDIS_URL/);
  fails({ REDIS_URL: 'secretpw@127.0.0.1:6379' }, /REDIS_URL must be a URL/);
  fails({ REDIS_URL: 'redis://:secretpw@127.0.0.1:6379/db-one' }, /at most a database number/);
  fails({ REDIS_URL: 'redis://:secretpw@127.0.0.1:6379/5?x=1' }, /at most a database number/);
  fails(
    { REDIS_URL: 'http://:secretpw@127.0.0.1:6379' },
    /REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL, got a http: URL/,
  );
  fails({ REDIS_URL: 'postgres://:secretpw@127.0.0.1:5432/db' }, /redis:\/\/ or rediss:\/\//);
  fails({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_KEY_PREFIX: 'has space' }, /REDIS_KEY_PREFIX must be/);
});

test('TRUST_PROXY: off by default; a number of hops, or addresses, CIDR ranges and named ranges; anything else refused', () => {
  assert.equal(loadConfig({}).trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: 'off' }).trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
  assert.deepEqual(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8,fd00::/8, 192.0.2.1' }).trustProxy, [
    'loopback',
    '10.0.0.0/8',
    'fd00::/8',
    '192.0.2.1',
  ]);
  for (const bad of ['0', '11', 'everyone', '10.0.0.0/33', '10.0.0.0/8/1', '::1/129', '300.1.1.1', 'loopback,,'])
    assert.throws(
      () => loadConfig({ TRUST_PROXY: bad }),
      (e: unknown) => e instanceof ConfigError && /TRUST_PROXY must be/.test(e.message),
      bad,
    );
});

test('OAuth: public Google and GitHub endpoints and no Dashboard clients by default; overridable; clients need both halves', () => {
  assert.deepEqual(loadConfig({}).oauth, {
    googleIssuerUrl: 'https://accounts.google.com',
    githubOAuthUrl: 'https://github.com',
    githubApiUrl: 'https://api.github.com',
    dashboard: { redirectUris: [] },
  });
  const c = loadConfig({
    GOOGLE_ISSUER_URL: 'http://127.0.0.1:9000',
    DASHBOARD_GITHUB_CLIENT_ID: 'Iv1.abc',
    DASHBOARD_GITHUB_CLIENT_SECRET: 'shh',
    DASHBOARD_OAUTH_REDIRECT_URIS: 'https://dash.example.com/cb, http://localhost:5173/cb',
  }).oauth;
  assert.equal(c.googleIssuerUrl, 'http://127.0.0.1:9000');
  assert.deepEqual(c.dashboard, {
    github: { clientId: 'Iv1.abc', clientSecret: 'shh' },
    redirectUris: ['https://dash.example.com/cb', 'http://localhost:5173/cb'],
  });
  assert.throws(
    () => loadConfig({ DASHBOARD_GOOGLE_CLIENT_ID: 'id-only' }),
    (e: unknown) => e instanceof ConfigError && /must be set together/.test(e.message),
  );
  assert.throws(() => loadConfig({ DASHBOARD_OAUTH_REDIRECT_URIS: 'https://dash.example.com/cb#x' }), ConfigError);
  assert.throws(() => loadConfig({ DASHBOARD_OAUTH_REDIRECT_URIS: 'javascript:alert(1)' }), ConfigError);
  assert.throws(() => loadConfig({ GITHUB_API_URL: 'not a url' }), ConfigError);
});

test('key management: the local master key file by default; AWS KMS needs a key id and a region', () => {
  assert.deepEqual(loadConfig({ ONBOARD_DATA_DIR: '/srv/onboard' }).kms, {
    provider: 'local',
    masterKeyFile: '/srv/onboard/master-key',
  });
  assert.deepEqual(loadConfig({ KMS_PROVIDER: 'aws', AWS_KMS_KEY_ID: 'alias/onboard', AWS_REGION: 'eu-west-1' }).kms, {
    provider: 'aws',
    keyId: 'alias/onboard',
    region: 'eu-west-1',
  });
  assert.equal(
    (
      loadConfig({
        KMS_PROVIDER: 'aws',
        AWS_KMS_KEY_ID: 'k',
        AWS_REGION: 'us-east-1',
        AWS_KMS_ENDPOINT: 'http://127.0.0.1:4566',
      }).kms as { endpoint?: string }
    ).endpoint,
    'http://127.0.0.1:4566',
  );
  assert.throws(() => loadConfig({ KMS_PROVIDER: 'vault' }), ConfigError);
  assert.throws(() => loadConfig({ KMS_PROVIDER: 'aws', AWS_REGION: 'eu-west-1' }), /AWS_KMS_KEY_ID/);
  assert.throws(() => loadConfig({ KMS_PROVIDER: 'aws', AWS_KMS_KEY_ID: 'k' }), /AWS_REGION/);
  assert.throws(
    () => loadConfig({ KMS_PROVIDER: 'aws', AWS_KMS_KEY_ID: 'k', AWS_REGION: 'r', AWS_KMS_ENDPOINT: 'not a url' }),
    ConfigError,
  );
});

test('transactions: a 5 s wait for the ledger, the ledger follower and the balance scan on by default; on/off switches refuse anything else', () => {
  const defaults = loadConfig({});
  assert.equal(defaults.transactions.confirmWaitMs, 5000);
  assert.equal(defaults.transactions.confirmIntervalMs, 1000);
  assert.equal(defaults.transactions.ledgerFollower, true);
  assert.equal(defaults.sponsorBalanceScan, true);
  const set = loadConfig({
    TX_CONFIRM_WAIT_MS: '0',
    TX_CONFIRM_INTERVAL_MS: '100',
    LEDGER_FOLLOWER: 'off',
    SPONSOR_BALANCE_SCAN: 'off',
  });
  assert.equal(set.transactions.confirmWaitMs, 0);
  assert.equal(set.transactions.confirmIntervalMs, 100);
  assert.equal(set.transactions.ledgerFollower, false);
  assert.throws(
    () => loadConfig({ TX_CONFIRM_INTERVAL_MS: '10' }),
    (e: unknown) => e instanceof ConfigError,
  );
  assert.equal(set.sponsorBalanceScan, false);
  assert.throws(
    () => loadConfig({ LEDGER_FOLLOWER: 'yes' }),
    (e: unknown) => e instanceof ConfigError && /LEDGER_FOLLOWER must be on or off/.test(e.message),
  );
  assert.throws(
    () => loadConfig({ TX_CONFIRM_WAIT_MS: '-1' }),
    (e: unknown) => e instanceof ConfigError,
  );
});

test('SEP-10 defaults: the host of PUBLIC_URL, else localhost; testnet', () => {
  assert.deepEqual(loadConfig({}).sep10, { homeDomain: 'localhost', network: 'testnet' });
  assert.equal(loadConfig({ PUBLIC_URL: 'https://dashboard.example.com' }).sep10.homeDomain, 'dashboard.example.com');
  assert.equal(loadConfig({ PUBLIC_URL: 'http://127.0.0.1:8080' }).sep10.homeDomain, '127.0.0.1:8080');
  assert.deepEqual(loadConfig({ SEP10_HOME_DOMAIN: 'auth.example.com', SEP10_NETWORK: 'mainnet' }).sep10, {
    homeDomain: 'auth.example.com',
    network: 'mainnet',
  });
});

test('bad SEP-10 values stop start-up', () => {
  assert.throws(() => loadConfig({ SEP10_NETWORK: 'futurenet' }), ConfigError);
  assert.throws(() => loadConfig({ SEP10_HOME_DOMAIN: 'https://example.com/path' }), ConfigError);
  // `<domain> auth` must fit a manageData name (64 bytes)
  assert.throws(() => loadConfig({ SEP10_HOME_DOMAIN: `${'a'.repeat(56)}.com` }), ConfigError);
});

test('DASHBOARD_DIR: the build in the repository by default, else the given directory (absolute)', () => {
  assert.equal(loadConfig({}).dashboard.dir, join(projectRoot, 'dashboard/dist'));
  assert.equal(loadConfig({ DASHBOARD_DIR: '/srv/onboard/dashboard' }).dashboard.dir, '/srv/onboard/dashboard');
  assert.equal(loadConfig({ DASHBOARD_DIR: 'build/dashboard' }).dashboard.dir, resolve('build/dashboard'));
});

test('DEV_OUTBOX_VIEW: on by default only with the dev outbox on a loopback address; on/off override', () => {
  const view = (env: NodeJS.ProcessEnv) => loadConfig(env).dashboard.devOutboxView;
  assert.equal(view({}), true);
  for (const HOST of ['127.0.0.1', '::1', 'localhost']) assert.equal(view({ HOST }), true, HOST);
  assert.equal(view({ PUBLIC_URL: 'http://localhost:8080' }), true);
  assert.equal(view({ PUBLIC_URL: 'http://[::1]:8080', SEP10_HOME_DOMAIN: 'localhost' }), true);
  // On the network, with real mail, or behind a proxy that puts it on the network: off.
  assert.equal(view({ HOST: '0.0.0.0' }), false);
  assert.equal(view({ HOST: '::' }), false);
  assert.equal(view({ HOST: '10.0.0.5' }), false);
  assert.equal(view({ SMTP_URL: 'smtp://mail.example.com:587' }), false);
  assert.equal(view({ PUBLIC_URL: 'https://onboard.example.com' }), false);
  assert.equal(view({ HOST: '0.0.0.0', DEV_OUTBOX_VIEW: 'on' }), true);
  assert.equal(view({ DEV_OUTBOX_VIEW: 'off' }), false);
  assert.throws(
    () => loadConfig({ DEV_OUTBOX_VIEW: 'yes' }),
    (e: unknown) => e instanceof ConfigError && /DEV_OUTBOX_VIEW must be on or off/.test(e.message),
  );
});

test('the dashboard offers the development Stellar signer only when SEP-10 is on a testnet played by localnet', () => {
  assert.equal(loadConfig({}).dashboard.devSigner, true);
  assert.equal(loadConfig({ SEP10_NETWORK: 'mainnet' }).dashboard.devSigner, false);
  assert.equal(loadConfig({ LOCALNET: 'off' }).dashboard.devSigner, false);
  assert.equal(
    loadConfig({ STELLAR_TESTNET_RPC_URL: 'https://soroban-testnet.stellar.org' }).dashboard.devSigner,
    false,
  );
});

test('the data-key cache: defaults, 0 s turns it off, and a bad value is a configuration error', () => {
  assert.deepEqual(loadConfig({}).dataKeyCache, { maxAgeMs: 300_000, maxUses: 1_000, maxEntries: 1_000 });
  assert.equal(loadConfig({ KMS_DATA_KEY_CACHE_SECONDS: '0' }).dataKeyCache.maxAgeMs, 0);
  for (const [name, value] of [
    ['KMS_DATA_KEY_CACHE_SECONDS', '3601'],
    ['KMS_DATA_KEY_CACHE_SECONDS', '-1'],
    ['KMS_DATA_KEY_CACHE_SECONDS', '1.5'],
    ['KMS_DATA_KEY_CACHE_MAX_USES', '0'],
    ['KMS_DATA_KEY_CACHE_MAX_USES', '1e400'],
    ['KMS_DATA_KEY_CACHE_ENTRIES', 'toString'],
    ['KMS_DATA_KEY_CACHE_ENTRIES', '5\u0000'],
  ] as const) {
    assert.throws(() => loadConfig({ [name]: value }), ConfigError, `${name}=${JSON.stringify(value)}`);
  }
});
