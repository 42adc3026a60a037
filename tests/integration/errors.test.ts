// The error contract every operation shares: envelope, codes and statuses from the catalogue, validation details,
// auth order, masking of unexpected errors, and credentials kept out of logs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { capturingLogger } from '../support/log';
import { systemClock } from '../../src/domain/deps';
import { notImplemented } from '../../src/operations/notImplemented';
import { loadBundledSpec } from '../../src/service';
import { createDb } from '../../src/infra/db/database';
import { createMailer } from '../../src/infra/mail/index';
import { openLocalKms } from '../../src/infra/kms/localKms';
import { secretsFromBytes } from '../../src/infra/secrets/serviceSecret';
import {
  headersFor,
  PLACEHOLDER_ACCESS_TOKEN,
  PLACEHOLDER_DPOP_PROOF,
  sampleCredentials,
  seedCredentials,
  withSessions,
  type SeededCredentials,
} from '../support/credentials';
import { call, rawCall } from '../support/http';
import { serveWithHandlers, startTestService, type TestService } from '../support/service';
import type { JobQueue } from '../../src/infra/jobs/jobQueue';

const VALID_G = 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2';

describe('error contract', () => {
  let svc: TestService;
  // Real keys stored in the service's database (the gate looks them up).
  let creds: SeededCredentials;
  let secret: Record<string, string>;
  before(async () => {
    svc = await startTestService();
    creds = await seedCredentials(svc.deps.db);
    secret = { 'x-service-api-key': creds.secretKey };
  });
  after(async () => {
    await svc?.stop();
  });

  test('unknown path: 404 NOT_FOUND in the error envelope', async () => {
    const res = await rawCall(svc.url, 'GET', '/v1/nope');
    assert.equal(res.status, 404);
    assert.deepEqual(
      { code: (res.body as any).code, success: (res.body as any).success },
      { code: 'NOT_FOUND', success: false },
    );
  });

  test('wrong method: 405 METHOD_NOT_ALLOWED with Allow', async () => {
    const res = await rawCall(svc.url, 'DELETE', '/v1/wallets/fund', { headers: secret });
    assert.equal(res.status, 405);
    assert.equal((res.body as any).code, 'METHOD_NOT_ALLOWED');
    assert.equal(res.headers.get('allow'), 'POST');
  });

  test('missing key: 401 INVALID_CREDENTIALS before any validation', async () => {
    const res = await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', { body: {} });
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'INVALID_CREDENTIALS');
  });

  test('malformed key: 401 INVALID_CREDENTIALS', async () => {
    const res = await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', {
      headers: { 'x-service-api-key': 'sec_testnet_short' },
      body: { publicKey: VALID_G },
    });
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'INVALID_CREDENTIALS');
  });

  test('publishable key on a secret route and the reverse: 403 API_KEY_TYPE_NOT_ALLOWED', async () => {
    const a = await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', {
      headers: { 'x-service-api-key': creds.publishableKey },
      body: { publicKey: VALID_G },
    });
    assert.equal(a.status, 403);
    assert.equal(a.body.code, 'API_KEY_TYPE_NOT_ALLOWED');
    const b = await call(svc.url, 'getTxHistory', 'GET', '/v1/tx/history', {
      headers: {
        'x-service-api-key': creds.secretKey,
        authorization: `DPoP ${PLACEHOLDER_ACCESS_TOKEN}`,
        dpop: PLACEHOLDER_DPOP_PROOF,
      },
    });
    assert.equal(b.status, 403);
    assert.equal(b.body.code, 'API_KEY_TYPE_NOT_ALLOWED');
  });

  test('session routes: missing or unknown token SDK_AUTH_INVALID_TOKEN, missing proof SDK_AUTH_DPOP_REQUIRED, bad proof SDK_AUTH_DPOP_INVALID', async () => {
    const key = { 'x-service-api-key': creds.publishableKey };
    const noToken = await call(svc.url, 'getTxHistory', 'GET', '/v1/tx/history', { headers: key });
    assert.equal(noToken.body.code, 'SDK_AUTH_INVALID_TOKEN');
    assert.match(noToken.headers.get('www-authenticate') ?? '', /^DPoP /);
    const bearer = await call(svc.url, 'getTxHistory', 'GET', '/v1/tx/history', {
      headers: { ...key, authorization: 'Bearer abc' },
    });
    assert.equal(bearer.body.code, 'SDK_AUTH_INVALID_TOKEN');
    const unknownToken = await call(svc.url, 'getTxHistory', 'GET', '/v1/tx/history', {
      headers: { ...key, authorization: 'DPoP abc' },
    });
    assert.equal(unknownToken.body.code, 'SDK_AUTH_INVALID_TOKEN');
    const { userSession } = await withSessions(svc.deps, creds);
    const token = { ...key, authorization: `DPoP ${userSession!.accessToken}` };
    const noProof = await call(svc.url, 'getTxHistory', 'GET', '/v1/tx/history', { headers: token });
    assert.equal(noProof.body.code, 'SDK_AUTH_DPOP_REQUIRED');
    const badProof = await call(svc.url, 'getTxHistory', 'GET', '/v1/tx/history', {
      headers: { ...token, dpop: 'not-a-jwt' },
    });
    assert.equal(badProof.body.code, 'SDK_AUTH_DPOP_INVALID');
  });

  test('missing or malformed publicKey: 400 VALIDATION_ERROR with details.fieldErrors', async () => {
    const missing = await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', { headers: secret, body: {} });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.code, 'VALIDATION_ERROR');
    assert.deepEqual(Object.keys(missing.body.details.fieldErrors), ['publicKey']);
    const malformed = await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', {
      headers: secret,
      body: { publicKey: 'GABC' },
    });
    assert.equal(malformed.status, 400);
    assert.ok(malformed.body.details.fieldErrors.publicKey.length > 0);
    const extra = await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', {
      headers: secret,
      body: { publicKey: VALID_G, admin: true },
    });
    assert.deepEqual(extra.body.details.fieldErrors, { admin: ['is not allowed'] });
  });

  test('query parameters are validated and named as query.<name>', async () => {
    const withSession = await withSessions(svc.deps, creds);
    const res = await call(svc.url, 'getTxHistory', 'GET', '/v1/tx/history?limit=0&network=futurenet', {
      headers: await headersFor(['publishableKey', 'userSession', 'dpopProof'], withSession, {
        method: 'GET',
        url: `${svc.url}/v1/tx/history`,
      }),
    });
    assert.equal(res.status, 400);
    assert.deepEqual(Object.keys(res.body.details.fieldErrors).sort(), ['query.limit', 'query.network']);
  });

  test('unparsable JSON: 400 INVALID_JSON', async () => {
    const res = await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', {
      headers: { ...secret, 'content-type': 'application/json' },
      rawBody: '{"publicKey":',
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'INVALID_JSON');
  });

  test('a body of another media type: 415 UNSUPPORTED_MEDIA_TYPE, as the contract documents', async () => {
    const res = await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', {
      headers: { ...secret, 'content-type': 'text/plain' },
      rawBody: 'hello',
    });
    assert.equal(res.status, 415);
    assert.equal(res.body.code, 'UNSUPPORTED_MEDIA_TYPE');
  });

  test('a body over 1 MiB: 413 PAYLOAD_TOO_LARGE, as the contract documents', async () => {
    const res = await call(svc.url, 'fundWallet', 'POST', '/v1/wallets/fund', {
      headers: { ...secret, 'content-type': 'application/json' },
      rawBody: JSON.stringify({ publicKey: 'G'.repeat(1024 * 1024 + 1) }),
    });
    assert.equal(res.status, 413);
    assert.equal(res.body.code, 'PAYLOAD_TOO_LARGE');
  });

  test('every operation that takes a body documents 413 and 415 (the body parser answers them for all)', () => {
    const doc = loadBundledSpec() as unknown as {
      paths: Record<string, Record<string, { operationId?: string; requestBody?: unknown; responses?: object }>>;
    };
    for (const item of Object.values(doc.paths))
      for (const op of Object.values(item)) {
        if (!op || typeof op !== 'object' || !op.requestBody) continue;
        for (const status of ['413', '415'])
          assert.ok(status in (op.responses ?? {}), `${op.operationId} does not document ${status}`);
      }
  });

  test('an operation not built yet: 501 NOT_IMPLEMENTED after auth and validation pass', async () => {
    // Every operation is built now: the same service with one handler replaced by the 501 one.
    const { url, close } = await serveWithHandlers(svc.deps, {
      listRampProviders: notImplemented('listRampProviders'),
    });
    try {
      const withSession = await withSessions(svc.deps, creds);
      const res = await call(url, 'listRampProviders', 'GET', '/v1/ramps/providers', {
        headers: await headersFor(['publishableKey', 'userSession', 'dpopProof'], withSession, {
          method: 'GET',
          url: `${url}/v1/ramps/providers`,
        }),
      });
      assert.equal(res.status, 501);
      assert.equal(res.body.code, 'NOT_IMPLEMENTED');
    } finally {
      await close();
    }
  });
});

describe('unexpected errors and logs', () => {
  test('an unexpected exception is logged with its stack and answered as a masked 500; keys never reach the log', async () => {
    const { log, lines } = capturingLogger('info');
    const db = createDb('postgres://unused@127.0.0.1:1/unused');
    const deps = {
      log,
      db,
      clock: systemClock,
      stellarHealth: {},
      version: '0.0.0',
      startedAt: new Date(),
      secrets: secretsFromBytes(randomBytes(32), 'test'),
      mailer: createMailer(
        { smtpUrl: undefined, from: 'test@onboard.local', outboxDir: mkdtempSync(join(tmpdir(), 'onboard-outbox-')) },
        log,
      ),
      kms: openLocalKms(join(mkdtempSync(join(tmpdir(), 'onboard-kms-')), 'master-key')),
      // No background work here: the handler that runs throws before anything is enqueued.
      jobs: {} as JobQueue,
    };
    const { url, close } = await serveWithHandlers(deps, {
      getHealth: async () => {
        throw new Error('database password is hunter2');
      },
    });
    try {
      const res = await call(url, 'getHealth', 'GET', '/health', {
        headers: { 'x-service-api-key': sampleCredentials.secretKey },
      });
      assert.equal(res.status, 500);
      assert.equal(res.body.code, 'INTERNAL_SERVER_ERROR');
      assert.doesNotMatch(res.text, /hunter2/);
      // The key lookup cannot reach this app's database: a masked 500, and still no key in the log.
      await call(url, 'fundWallet', 'POST', '/v1/wallets/fund', {
        headers: { 'x-service-api-key': sampleCredentials.secretKey },
        body: {},
      });
      const logText = lines.join('');
      assert.match(logText, /hunter2/, 'the cause is logged');
      assert.match(logText, /"stack"/, 'with its stack');
      assert.doesNotMatch(logText, new RegExp(sampleCredentials.secretKey), 'the API key is redacted');
    } finally {
      await close();
      await db.destroy();
    }
  });
});
