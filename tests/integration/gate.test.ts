// The gate on real PostgreSQL: API keys looked up by hash, with the interface spec's codes for unknown, revoked,
// expired and wrong-type keys and for archived apps; browser origins against the app's list, CORS for allowed ones
// and preflights; and no key ever in clear in the database or the log.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { capturingLogger } from '../support/log';
import { operations } from '../../generated/server/catalogue.gen';
import { createApiKey, revokeApiKey, setApiKeyExpiry } from '../../src/domain/apiKeys/apiKeys';
import { archiveApp } from '../../src/domain/apps/store';
import { sampleCredentials, seedCredentials, type SeededCredentials } from '../support/credentials';
import { call, rawCall } from '../support/http';
import { startTestService, type TestService } from '../support/service';

const VALID_G = 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2';
const fund = (key: string, headers: Record<string, string> = {}) => ({
  headers: { 'x-service-api-key': key, ...headers },
  body: { publicKey: VALID_G },
});

test("every operation behind an API key documents the gate's statuses (401, 403, 404)", () => {
  for (const [id, op] of Object.entries(operations)) {
    if (
      !(op.security as readonly (readonly string[])[]).some(
        (r) => r.includes('secretKey') || r.includes('publishableKey'),
      )
    )
      continue;
    for (const status of [401, 403, 404])
      assert.ok((op.statuses as readonly number[]).includes(status), `${id} does not document ${status}`);
  }
});

describe('the gate: API keys and origins', () => {
  let svc: TestService;
  let creds: SeededCredentials;
  const captured = capturingLogger();
  const logLines = captured.lines;
  before(async () => {
    svc = await startTestService({}, { log: captured.log });
    creds = await seedCredentials(svc.deps.db, { origins: ['https://app.example.com', 'http://localhost:3000'] });
  });
  after(async () => {
    await svc?.stop();
  });

  test('a stored secret key passes the gate (fundWallet then answers 404 WALLET_NOT_FOUND for an unknown wallet) and its use is recorded', async () => {
    const res = await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', fund(creds.secretKey));
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'WALLET_NOT_FOUND');
    let lastUsed: Date | null = null;
    for (let i = 0; i < 50 && !lastUsed; i++) {
      lastUsed = (await svc.deps.db('api_keys').where({ id: creds.secretKeyId }).first()).last_used_at;
      if (!lastUsed) await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(lastUsed, 'last_used_at is set');
  });

  test('unknown key of the right form: 401 API_KEY_NOT_FOUND', async () => {
    const res = await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', fund(sampleCredentials.secretKey));
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'API_KEY_NOT_FOUND');
  });

  test('revoked key: 401 API_KEY_NOT_FOUND', async () => {
    const key = await createApiKey(svc.deps.db, { appId: creds.app.id, type: 'secret', network: 'testnet' });
    assert.equal((await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', fund(key.key))).status, 404);
    await revokeApiKey(svc.deps.db, key.id);
    const res = await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', fund(key.key));
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'API_KEY_NOT_FOUND');
  });

  test('expired key: 401 API_KEY_EXPIRED; a key expiring later still passes', async () => {
    const key = await createApiKey(svc.deps.db, {
      appId: creds.app.id,
      type: 'secret',
      network: 'testnet',
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    assert.equal((await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', fund(key.key))).status, 404);
    await setApiKeyExpiry(svc.deps.db, key.id, new Date(Date.now() - 1000));
    const res = await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', fund(key.key));
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'API_KEY_EXPIRED');
  });

  test('wrong type: a publishable key on the Server API and a secret key on the SDK API: 403 API_KEY_TYPE_NOT_ALLOWED', async () => {
    const a = await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', fund(creds.publishableKey));
    assert.equal(a.status, 403);
    assert.equal(a.body.code, 'API_KEY_TYPE_NOT_ALLOWED');
    const b = await call(svc.url, 'startEmailSignIn', 'POST', '/v1/auth/email/start', {
      headers: { 'x-service-api-key': creds.secretKey },
      body: { email: 'user@example.com' },
    });
    assert.equal(b.status, 403);
    assert.equal(b.body.code, 'API_KEY_TYPE_NOT_ALLOWED');
  });

  test('archived app: 404 APPLICATION_NOT_FOUND', async () => {
    const other = await seedCredentials(svc.deps.db, { name: 'Archived app' });
    assert.equal((await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', fund(other.secretKey))).status, 404);
    await archiveApp(svc.deps.db, other.app.id);
    const res = await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', fund(other.secretKey));
    assert.equal(res.status, 404);
    assert.equal(res.body.code, 'APPLICATION_NOT_FOUND');
    const sdkRoute = await call(svc.url, 'startEmailSignIn', 'POST', '/v1/auth/email/start', {
      headers: { 'x-service-api-key': other.publishableKey },
      body: { email: 'u@example.com' },
    });
    assert.equal(sdkRoute.status, 404);
    assert.equal(sdkRoute.body.code, 'APPLICATION_NOT_FOUND');
  });

  test('an Origin not in the app list: 403 ORIGIN_NOT_ALLOWED, without CORS headers', async () => {
    for (const origin of [
      'https://evil.example.com',
      'https://app.example.com.evil.com',
      'http://app.example.com',
      'null',
    ]) {
      const res = await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', fund(creds.secretKey, { origin }));
      assert.equal(res.status, 403, origin);
      assert.equal(res.body.code, 'ORIGIN_NOT_ALLOWED', origin);
      assert.equal(res.headers.get('access-control-allow-origin'), null, origin);
    }
  });

  test('an allowed Origin: the request goes through with Access-Control-Allow-Origin echoed and Vary: Origin', async () => {
    for (const origin of ['https://app.example.com', 'http://localhost:3000']) {
      const res = await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', fund(creds.secretKey, { origin }));
      assert.equal(res.status, 404, origin);
      assert.equal(res.headers.get('access-control-allow-origin'), origin);
      assert.match(res.headers.get('vary') ?? '', /Origin/);
      assert.match(res.headers.get('access-control-expose-headers') ?? '', /X-Request-Id/);
    }
    // A later refusal (here validation) keeps the CORS headers, so the browser can read the error.
    const invalid = await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', {
      headers: { 'x-service-api-key': creds.secretKey, origin: 'https://app.example.com' },
      body: {},
    });
    assert.equal(invalid.status, 400);
    assert.equal(invalid.headers.get('access-control-allow-origin'), 'https://app.example.com');
  });

  test("an allowed Origin can read the gate's own refusals after the key check (a DPoP nonce to use, a missing proof)", async () => {
    // Without these headers a browser sees only a network error and can never follow the nonce or refresh a token.
    const res = await call(svc.url, 'verifyEmailSignIn', 'POST', '/v1/auth/email/verify', {
      headers: { 'x-service-api-key': creds.publishableKey, origin: 'https://app.example.com' },
      body: { email: 'u@example.com', code: '123456' },
    });
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'SDK_AUTH_DPOP_REQUIRED');
    assert.equal(res.headers.get('access-control-allow-origin'), 'https://app.example.com');
    const exposed = res.headers.get('access-control-expose-headers') ?? '';
    for (const name of ['DPoP-Nonce', 'WWW-Authenticate', 'Date']) assert.match(exposed, new RegExp(`\\b${name}\\b`));
  });

  test('preflight: OPTIONS on a contract path answers 204 with the methods and headers; not on an unknown path', async () => {
    const res = await rawCall(svc.url, 'OPTIONS', '/v1/wallets/fund', {
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-service-api-key, content-type',
      },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), 'https://app.example.com');
    assert.equal(res.headers.get('access-control-allow-methods'), 'POST');
    const allowed = (res.headers.get('access-control-allow-headers') ?? '').split(',').map((h) => h.trim());
    for (const h of ['x-service-api-key', 'authorization', 'dpop', 'content-type', 'idempotency-key', 'x-request-id'])
      assert.ok(allowed.includes(h), h);
    assert.match(res.headers.get('vary') ?? '', /Origin/);
    const templated = await rawCall(svc.url, 'OPTIONS', '/v1/tx/build', {
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
    });
    assert.equal(templated.status, 204);
    assert.equal(templated.headers.get('access-control-allow-methods'), 'GET, POST'); // /v1/tx/{hash} and /v1/tx/build
    const unknown = await rawCall(svc.url, 'OPTIONS', '/v1/nope', { headers: { origin: 'https://app.example.com' } });
    assert.equal(unknown.status, 404);
  });

  test('keys never appear in clear: not in any text column of any table, not in the log', async () => {
    const extra = await createApiKey(svc.deps.db, {
      appId: creds.app.id,
      type: 'publishable',
      network: 'testnet',
      label: 'searched',
    });
    // Use every key, through accepted and refused paths, with and without an origin.
    await call(
      svc.url,
      'fundWallet',
      'POST',
      '/v1/wallets/fund',
      fund(creds.secretKey, { origin: 'https://app.example.com' }),
    );
    await call(
      svc.url,
      'fundWallet',
      'POST',
      '/v1/wallets/fund',
      fund(creds.publishableKey, { origin: 'https://evil.example.com' }),
    );
    await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', fund(extra.key));
    await call(svc.url, 'startEmailSignIn', 'POST', '/v1/auth/email/start', {
      headers: { 'x-service-api-key': creds.publishableKey },
      body: { email: 'a@example.com' },
    });
    const keys = [creds.secretKey, creds.publishableKey, extra.key];
    // The random part alone: finds the key even if stored without its prefix.
    const secrets = keys.map((k) => k.slice('sec_testnet_'.length));
    const columns = (
      await svc.deps.db.raw(
        `select table_name, column_name from information_schema.columns
        where table_schema = 'public' and data_type in ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY')`,
      )
    ).rows as { table_name: string; column_name: string }[];
    assert.ok(
      columns.some((c) => c.table_name === 'api_keys' && c.column_name === 'key_hash'),
      'the search sees api_keys',
    );
    for (const { table_name, column_name } of columns) {
      for (const secret of secrets) {
        const hits = await svc.deps
          .db(table_name)
          .whereRaw('position(? in ??::text) > 0', [secret, column_name])
          .count({ n: '*' });
        assert.equal(Number(hits[0]!.n), 0, `a key in clear in ${table_name}.${column_name}`);
      }
    }
    const stored = await svc.deps.db('api_keys').where({ id: extra.id }).first();
    assert.match(stored.key_hash, /^[0-9a-f]{64}$/);
    assert.equal(stored.display_prefix, extra.key.slice(0, 'pub_testnet_'.length + 4));
    const logText = logLines.join('');
    assert.ok(logText.includes('/v1/wallets/fund'), 'the log was captured');
    for (const secret of secrets) assert.ok(!logText.includes(secret), 'a key in clear in the log');
  });
});
