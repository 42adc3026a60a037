// Idempotency-Key over HTTP on real PostgreSQL. No operation declaring the header is built yet, so the app is built
// with a counting fundWallet handler whose outcome each test chooses; the layer under test is the router's, the same
// for every operation that declares the header. The clock is pinned so expiry and takeover are tested without waiting.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Keypair } from '@stellar/stellar-sdk';
import { operations, type OperationId } from '../../generated/server/catalogue.gen';
import type { Deps } from '../../src/domain/deps';
import { AppError } from '../../src/domain/errors';
import {
  IDEMPOTENCY_LOCK_TIMEOUT_MS,
  IDEMPOTENCY_TTL_MS,
  pruneIdempotencyKeys,
} from '../../src/domain/idempotency/store';
import type { Handler } from '../../src/operations/types';
import { seedCredentials, type SeededCredentials } from '../support/credentials';
import { call } from '../support/http';
import { signInOperator, type OperatorClient } from '../support/operators';
import { operationObject, resolve } from '../support/spec';
import { serveWithHandlers, startTestService, type TestService } from '../support/service';

const T0 = Date.parse('2026-11-22T10:00:00.000Z');

describe('Idempotency-Key', () => {
  let svc: TestService;
  let served: Awaited<ReturnType<typeof serveWithHandlers>> | undefined;
  let url: string;
  let a: SeededCredentials;
  let b: SeededCredentials;
  let nowMs = T0;
  /** fundWallet runs (the handler's own count, so a replay is seen not to run it). */
  let runs = 0;
  /** What the next fundWallet runs do; each test sets it. */
  let behaviour: Handler<'fundWallet'>;

  const succeed: Handler<'fundWallet'> = async (req) => ({
    content: { publicKey: req.body.publicKey, startingBalance: `${runs}.5` },
    headers: { Location: `/v1/users/by-wallet/${req.body.publicKey}` },
  });

  function fund(creds: SeededCredentials, publicKey: string, idempotencyKey?: string) {
    const headers: Record<string, string> = { 'x-service-api-key': creds.secretKey };
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    return call(url, 'fundWallet', 'POST', '/v1/wallets/fund', { headers, body: { publicKey } });
  }

  before(async () => {
    svc = await startTestService();
    a = await seedCredentials(svc.deps.db, { name: 'App A' });
    b = await seedCredentials(svc.deps.db, { name: 'App B' });
    const deps: Deps = { ...svc.deps, clock: { now: () => new Date(nowMs) } };
    const fundWallet: Handler<'fundWallet'> = async (req) => {
      runs += 1;
      return behaviour(req);
    };
    served = await serveWithHandlers(deps, { fundWallet });
    url = served.url;
  });
  after(async () => {
    await served?.close();
    await svc?.stop();
  });
  beforeEach(() => {
    nowMs = T0;
    runs = 0;
    behaviour = succeed;
  });

  test('a repeat with the same key and request replays the stored answer (status, body, Location) and runs the handler once', async () => {
    const key = randomUUID();
    const wallet = Keypair.random().publicKey();
    const first = await fund(a, wallet, key);
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    // The same JSON written differently (spacing, a trailing newline) is the same request.
    const again = await call(url, 'fundWallet', 'POST', '/v1/wallets/fund', {
      headers: { 'x-service-api-key': a.secretKey, 'idempotency-key': key, 'content-type': 'application/json' },
      rawBody: `{ "publicKey" :  "${wallet}" }\n`,
    });
    assert.equal(again.status, 200);
    assert.equal(again.text, first.text);
    assert.equal(again.headers.get('location'), first.headers.get('location'));
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(runs, 1);
  });

  test('without the header nothing changes: every request runs', async () => {
    const wallet = Keypair.random().publicKey();
    const first = await fund(a, wallet);
    const second = await fund(a, wallet);
    assert.equal(runs, 2);
    assert.notEqual(first.text, second.text);
    assert.equal(second.headers.get('idempotent-replayed'), null);
  });

  test('the same key with a different body answers 422 IDEMPOTENCY_KEY_REUSED without running', async () => {
    const key = randomUUID();
    await fund(a, Keypair.random().publicKey(), key);
    const other = await fund(a, Keypair.random().publicKey(), key);
    assert.equal(other.status, 422);
    assert.equal(other.body.code, 'IDEMPOTENCY_KEY_REUSED');
    assert.equal(runs, 1);
  });

  test('20 concurrent requests with one key: the handler runs once; the others get 409 TX_IDEMPOTENCY_CONFLICT or the replay', async () => {
    let finish!: () => void;
    const finished = new Promise<void>((r) => (finish = r));
    behaviour = async (req) => {
      await finished;
      return succeed(req);
    };
    const key = randomUUID();
    const wallet = Keypair.random().publicKey();
    const answers = Array.from({ length: 20 }, () => fund(a, wallet, key));
    // Let every request reach the claim while the first one is held in its handler.
    setTimeout(finish, 500);
    const results = await Promise.all(answers);
    assert.equal(runs, 1);
    const ran = results.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === null);
    const conflicts = results.filter((r) => r.status === 409);
    assert.equal(ran.length, 1);
    assert.ok(conflicts.length > 0, 'some requests arrived while the first was in flight');
    for (const r of conflicts) assert.equal(r.body.code, 'TX_IDEMPOTENCY_CONFLICT');
    for (const r of results.filter((x) => x.status === 200)) assert.equal(r.text, ran[0]!.text);
    assert.equal(conflicts.length + results.filter((r) => r.status === 200).length, 20);
    const later = await fund(a, wallet, key);
    assert.equal(later.headers.get('idempotent-replayed'), 'true');
    assert.equal(runs, 1);
  });

  test('keys belong to the caller: the same key string from two API keys never collides', async () => {
    const key = randomUUID();
    const fromA = await fund(a, Keypair.random().publicKey(), key);
    const fromB = await fund(b, Keypair.random().publicKey(), key); // another body: not a reuse, another caller
    assert.equal(fromA.status, 200);
    assert.equal(fromB.status, 200);
    assert.equal(fromB.headers.get('idempotent-replayed'), null);
    assert.equal(runs, 2);
    assert.equal((await fund(b, fromB.body.content.publicKey, key)).headers.get('idempotent-replayed'), 'true');
  });

  test('a 5xx releases the key: the retry runs the operation again', async () => {
    const key = randomUUID();
    const wallet = Keypair.random().publicKey();
    behaviour = async () => {
      throw new AppError('SERVICE_UNAVAILABLE', { message: 'chain down' });
    };
    assert.equal((await fund(a, wallet, key)).status, 503);
    behaviour = async () => {
      throw new Error('unexpected');
    };
    assert.equal((await fund(a, wallet, key)).status, 500);
    behaviour = succeed;
    const retried = await fund(a, wallet, key);
    assert.equal(retried.status, 200);
    assert.equal(retried.headers.get('idempotent-replayed'), null);
    assert.equal(runs, 3);
  });

  test('state-dependent client errors (404, 409) are not kept; final ones (402) are replayed', async () => {
    const wallet = Keypair.random().publicKey();
    const notFound = randomUUID();
    behaviour = async () => {
      throw new AppError('WALLET_NOT_FOUND');
    };
    assert.equal((await fund(a, wallet, notFound)).status, 404);
    behaviour = async () => {
      throw new AppError('WALLET_ALREADY_FUNDED');
    };
    assert.equal((await fund(a, wallet, notFound)).status, 409);
    behaviour = succeed;
    assert.equal((await fund(a, wallet, notFound)).status, 200);
    assert.equal(runs, 3);

    runs = 0;
    const declined = randomUUID();
    behaviour = async () => {
      throw new AppError('FUND_XLM_FAILED', {
        message: 'The funding wallet cannot cover 1.5 XLM',
        details: { needed: '1.5' },
      });
    };
    const first = await fund(a, wallet, declined);
    assert.equal(first.status, 402);
    behaviour = succeed;
    const replayed = await fund(a, wallet, declined);
    assert.equal(replayed.status, 402);
    assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
    const { requestId: _first, ...firstBody } = first.body;
    const { requestId: _replayed, ...replayedBody } = replayed.body;
    assert.deepEqual(replayedBody, firstBody);
    assert.equal(runs, 1);
  });

  test('answers are replayed for 24 hours, then the key is free again; pruneIdempotencyKeys deletes what is older', async () => {
    const key = randomUUID();
    const wallet = Keypair.random().publicKey();
    await fund(a, wallet, key);
    nowMs = T0 + IDEMPOTENCY_TTL_MS - 1000;
    assert.equal((await fund(a, wallet, key)).headers.get('idempotent-replayed'), 'true');
    assert.equal((await fund(a, Keypair.random().publicKey(), key)).status, 422);
    nowMs = T0 + IDEMPOTENCY_TTL_MS;
    const expired = await fund(a, Keypair.random().publicKey(), key); // another body is fine once expired
    assert.equal(expired.status, 200);
    assert.equal(expired.headers.get('idempotent-replayed'), null);
    assert.equal(runs, 2);

    const record = () =>
      svc.deps
        .db('idempotency_keys')
        .where({ scope: `key:${a.secretKeyId}`, key })
        .first();
    // The records of the earlier tests, made at T0, are 24 h old now; this key was claimed afresh at T0 + 24 h.
    assert.ok((await pruneIdempotencyKeys(svc.deps.db, new Date(T0 + IDEMPOTENCY_TTL_MS))) >= 1);
    assert.ok(await record(), 'a record younger than 24 h is kept');
    assert.equal(await pruneIdempotencyKeys(svc.deps.db, new Date(T0 + 2 * IDEMPOTENCY_TTL_MS)), 1);
    assert.equal(await record(), undefined);
  });

  test('a request in flight for longer than the lock timeout is presumed lost: the same request takes over', async () => {
    let release!: () => void;
    const hung = new Promise<void>((r) => (release = r));
    behaviour = async (req) => {
      await hung;
      return { content: { publicKey: req.body.publicKey, startingBalance: '99' } };
    };
    const key = randomUUID();
    const wallet = Keypair.random().publicKey();
    const lost = fund(a, wallet, key); // holds the claim, as a crashed process would
    await new Promise((r) => setTimeout(r, 200));
    try {
      behaviour = succeed;
      nowMs = T0 + IDEMPOTENCY_LOCK_TIMEOUT_MS - 1000;
      assert.equal((await fund(a, wallet, key)).status, 409);
      nowMs = T0 + IDEMPOTENCY_LOCK_TIMEOUT_MS;
      assert.equal(
        (await fund(a, Keypair.random().publicKey(), key)).status,
        422,
        'a stale claim is taken over only by the same request',
      );
      const takeover = await fund(a, wallet, key);
      assert.equal(takeover.status, 200);
      assert.equal(takeover.headers.get('idempotent-replayed'), null);
      // The first request finishes after all: its client gets its answer, but the key keeps the takeover's.
      release();
      assert.equal((await lost).body.content.startingBalance, '99');
      const replay = await fund(a, wallet, key);
      assert.equal(replay.text, takeover.text);
      assert.notEqual(replay.body.content.startingBalance, '99');
      assert.equal(runs, 2);
    } finally {
      release(); // never leave a handler hanging, even when an assertion failed
    }
  });

  test('the stored answer is sealed: nothing of it in clear in the database', async () => {
    const key = randomUUID();
    const wallet = Keypair.random().publicKey();
    await fund(a, wallet, key);
    const row = await svc.deps.db('idempotency_keys').where({ key }).first();
    assert.equal(row.scope, `key:${a.secretKeyId}`);
    assert.ok(Buffer.isBuffer(row.answer));
    assert.ok(!row.answer.toString('latin1').includes(wallet));
    assert.ok(!JSON.stringify(row).includes(wallet));
  });
});

describe('Idempotency-Key on real Dashboard operations, scoped to the operator', () => {
  let svc: TestService;
  let alice: OperatorClient;
  let bob: OperatorClient;
  before(async () => {
    svc = await startTestService();
    alice = await signInOperator(svc);
    bob = await signInOperator(svc);
  });
  after(async () => {
    await svc?.stop();
  });

  const createApp = (client: OperatorClient, key: string, body: Record<string, unknown>) =>
    client.call('createApp', 'POST', '/api/v1/apps', { headers: { 'idempotency-key': key }, body });
  const appsNamed = async (name: string) => Number((await svc.deps.db('apps').where({ name }).count({ n: '*' }))[0]!.n);

  test('createApp retried with one key creates one app and replays its answer', async () => {
    const key = randomUUID();
    const body = { name: `Idempotent ${key}`, network: 'testnet' };
    const first = await createApp(alice, key, body);
    assert.equal(first.status, 201);
    const again = await createApp(alice, key, body);
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.text, first.text);
    assert.equal(await appsNamed(body.name), 1);
    const reused = await createApp(alice, key, { ...body, network: 'mainnet' });
    assert.equal(reused.status, 422);
    assert.equal(reused.body.code, 'IDEMPOTENCY_KEY_REUSED');
  });

  test('the same key string from another operator is their own: a second app, no replay', async () => {
    const key = randomUUID();
    const body = { name: `Shared key ${key}`, network: 'testnet' };
    const fromAlice = await createApp(alice, key, body);
    const fromBob = await createApp(bob, key, body);
    assert.equal(fromBob.status, 201);
    assert.equal(fromBob.headers.get('idempotent-replayed'), null);
    assert.notEqual(fromBob.body.content.appId, fromAlice.body.content.appId);
    assert.equal(await appsNamed(body.name), 2);
    const rows = await svc.deps.db('idempotency_keys').where({ key });
    assert.deepEqual(
      rows.map((r) => r.scope).sort(),
      [`operator:${alice.operatorId}`, `operator:${bob.operatorId}`].sort(),
    );
  });

  test('createApiKey replays the key shown once, which is stored sealed, never in clear', async () => {
    const app = await createApp(alice, randomUUID(), { name: 'Keys app', network: 'testnet' });
    const key = randomUUID();
    const path = `/api/v1/apps/${app.body.content.appId}/api-keys`;
    const first = await alice.call('createApiKey', 'POST', path, {
      headers: { 'idempotency-key': key },
      body: { type: 'secret' },
    });
    assert.equal(first.status, 201);
    const again = await alice.call('createApiKey', 'POST', path, {
      headers: { 'idempotency-key': key },
      body: { type: 'secret' },
    });
    assert.equal(again.body.content.key, first.body.content.key);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(
      Number((await svc.deps.db('api_keys').where({ app_id: app.body.content.appId }).count({ n: '*' }))[0]!.n),
      1,
    );
    const row = await svc.deps
      .db('idempotency_keys')
      .where({ scope: `operator:${alice.operatorId}`, key })
      .first();
    const secretPart = (first.body.content.key as string).slice('sec_testnet_'.length);
    assert.ok(!row.answer.toString('latin1').includes(secretPart));
    assert.ok(!JSON.stringify(row).includes(secretPart));
  });
});

describe('Idempotency-Key in the contract', () => {
  test('every operation declaring the header documents the answers the layer gives: 409 and 422', () => {
    const declaring = (Object.keys(operations) as OperationId[]).filter((id) => operations[id].idempotent);
    assert.ok(declaring.length > 0);
    for (const id of declaring) {
      const { op } = operationObject(id);
      const params = (op.parameters ?? []).map((p: any) => resolve(p).node.name);
      assert.ok(params.includes('Idempotency-Key'), `${id} declares Idempotency-Key`);
      for (const status of ['409', '422']) assert.ok(op.responses[status], `${id} documents ${status}`);
    }
  });
});
