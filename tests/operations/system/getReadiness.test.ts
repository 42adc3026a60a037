// getReadiness (GET /ready) against the real service: the database and each configured network, up or down; Redis
// reported when the limits count in it (with a real Redis: tests/integration/redisLimits.test.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call } from '../../support/http';
import { startTestService, type TestService } from '../../support/service';
import { getReadiness } from '../../../src/operations/system/getReadiness';
import { AppError } from '../../../src/domain/errors';
import type { Deps } from '../../../src/domain/deps';

describe('getReadiness', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(async () => {
    await svc?.stop();
  });

  test('GET /ready checks the database and the in-process localnet; an unconfigured network does not fail it', async () => {
    const res = await call(svc.url, 'getReadiness', 'GET', '/ready');
    assert.equal(res.status, 200);
    assert.equal(res.body.content.checks.database.status, 'up');
    assert.equal(res.body.content.checks['stellar:testnet'].status, 'up');
    assert.match(res.body.content.checks['stellar:testnet'].detail, /^latest ledger \d+$/);
    assert.equal(res.body.content.checks['stellar:mainnet'].status, 'not_configured');
  });

  test('with LOCALNET=off and no RPC URL, testnet is reported not_configured', async () => {
    const off = await startTestService({ LOCALNET: 'off' });
    try {
      const res = await call(off.url, 'getReadiness', 'GET', '/ready');
      assert.equal(res.status, 200);
      assert.equal(res.body.content.checks['stellar:testnet'].status, 'not_configured');
      assert.equal(off.localnet, undefined);
    } finally {
      await off.stop();
    }
  });

  test('GET /ready answers 503 SERVICE_UNAVAILABLE when a configured Stellar RPC is unreachable', async () => {
    const down = await startTestService({ STELLAR_TESTNET_RPC_URL: 'http://127.0.0.1:9/' });
    try {
      const res = await call(down.url, 'getReadiness', 'GET', '/ready');
      assert.equal(res.status, 503);
      assert.equal(res.body.code, 'SERVICE_UNAVAILABLE');
      assert.equal(res.body.details.checks['stellar:testnet'].status, 'down');
      assert.equal(res.body.details.checks.database.status, 'up');
      assert.equal(res.headers.get('retry-after'), '5');
    } finally {
      await down.stop();
    }
  });

  test('GET /ready answers 503 when the database is gone', async () => {
    const other = await startTestService();
    await other.deps.db.destroy();
    try {
      const res = await call(other.url, 'getReadiness', 'GET', '/ready');
      assert.equal(res.status, 503);
      assert.equal(res.body.details.checks.database.status, 'down');
    } finally {
      await other.stop().catch(() => {});
    }
  });

  test('with RATE_LIMIT_STORE=redis Redis is reported (`redis`), up or down, and never fails readiness', async () => {
    const withRedis = (health: () => Promise<{ ok: boolean; detail?: string }>) =>
      getReadiness({ ...svc.deps, redis: { health } as NonNullable<Deps['redis']> });
    type Checks = Record<string, { status: string; detail?: string }>;
    const ready = async (handler: ReturnType<typeof withRedis>) =>
      (await handler({} as Parameters<typeof handler>[0])) as { content: { status: string; checks: Checks } };
    const up = await ready(withRedis(async () => ({ ok: true })));
    assert.equal(up.content.checks.redis?.status, 'up');
    const down = await ready(withRedis(async () => ({ ok: false, detail: 'not connected (reconnecting)' })));
    assert.equal(down.content.status, 'ready');
    assert.deepEqual(
      { status: down.content.checks.redis?.status, detail: down.content.checks.redis?.detail },
      { status: 'down', detail: 'not connected (reconnecting)' },
    );
    const failing = await ready(withRedis(() => Promise.reject(new Error('Command timed out'))));
    assert.equal(failing.content.checks.redis?.status, 'down');
    assert.equal(failing.content.checks.redis?.detail, 'Command timed out');
    // Without the redis store there is no such check.
    const none = await ready(getReadiness(svc.deps));
    assert.equal(none.content.checks.redis, undefined);
  });

  test('a process shutting down is not ready (503, `process` down: shutting down), whatever its dependencies say', async () => {
    const handler = getReadiness({ ...svc.deps, shuttingDown: () => true });
    await assert.rejects(
      handler({} as Parameters<typeof handler>[0]),
      (err: unknown) =>
        err instanceof AppError &&
        err.code === 'SERVICE_UNAVAILABLE' &&
        JSON.stringify(err.details).includes('"process":{"status":"down","detail":"shutting down"}'),
    );
    const running = await getReadiness({ ...svc.deps, shuttingDown: () => false })({} as Parameters<typeof handler>[0]);
    assert.equal((running as { content: { status: string } }).content.status, 'ready');
  });
});
