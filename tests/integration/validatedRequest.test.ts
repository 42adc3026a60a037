// What a handler is given: the request as validated, with query and path parameters coerced to their schema types
// (the router hands over the validator's own coerced request, without parsing it a second time). Built with stub
// handlers that record their request, behind the real gate and validator, on real PostgreSQL.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair } from '@stellar/stellar-sdk';
import type { Handler } from '../../src/operations/types';
import { seedCredentials, type SeededCredentials } from '../support/credentials';
import { call } from '../support/http';
import { serveWithHandlers, startTestService, type TestService } from '../support/service';

describe('the validated request a handler is given', () => {
  let svc: TestService;
  let served: Awaited<ReturnType<typeof serveWithHandlers>> | undefined;
  let url: string;
  let creds: SeededCredentials;
  const seen: { query?: unknown; path?: unknown; body?: unknown }[] = [];

  before(async () => {
    svc = await startTestService();
    creds = await seedCredentials(svc.deps.db, { name: 'Coercion app' });
    const listServerDistributionPushRecipients: Handler<'listServerDistributionPushRecipients'> = async (req) => {
      seen.push({ query: req.query, path: req.path });
      return { content: { recipients: [], nextCursor: null } };
    };
    const fundWallet: Handler<'fundWallet'> = async (req) => {
      seen.push({ body: req.body });
      return { content: { publicKey: req.body.publicKey, startingBalance: '1' } };
    };
    served = await serveWithHandlers(svc.deps, { listServerDistributionPushRecipients, fundWallet });
    url = served.url;
  });
  after(async () => {
    await served?.close();
    await svc?.stop();
  });

  const list = (query: string) =>
    call(url, 'listServerDistributionPushRecipients', 'GET', `/v1/distribution-pushes/dps_01ABC/recipients${query}`, {
      headers: { 'x-service-api-key': creds.secretKey },
    });

  test('an integer query parameter arrives as a number, a string one as given, the path parameter by name', async () => {
    seen.length = 0;
    const res = await list('?limit=7&status=failed&cursor=abc');
    assert.equal(res.status, 200);
    assert.deepEqual(seen, [{ query: { limit: 7, status: 'failed', cursor: 'abc' }, path: { pushId: 'dps_01ABC' } }]);
  });

  test('a value the schema refuses never reaches the handler (400 VALIDATION_ERROR naming the parameter)', async () => {
    seen.length = 0;
    for (const [query, field] of [
      ['?limit=seven', 'query.limit'],
      ['?limit=0', 'query.limit'],
      ['?limit=101', 'query.limit'],
      ['?status=lost', 'query.status'],
    ] as const) {
      const res = await list(query);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.code, 'VALIDATION_ERROR', query);
      assert.deepEqual(Object.keys(res.body.details.fieldErrors), [field], query);
    }
    assert.deepEqual(seen, []);
  });

  test('query names of Object.prototype are unknown parameters: 400 naming each, nothing reached or polluted', async () => {
    seen.length = 0;
    const res = await list('?limit=5&__proto__=x&constructor=y&toString=z&__proto__[polluted]=1');
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'VALIDATION_ERROR');
    assert.deepEqual(Object.keys(res.body.details.fieldErrors).sort(), [
      'query.__proto__',
      'query.__proto__[polluted]',
      'query.constructor',
      'query.toString',
    ]);
    assert.deepEqual(seen, []);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  test('a JSON body arrives as sent, the same value the contract validated', async () => {
    seen.length = 0;
    const publicKey = Keypair.random().publicKey();
    const res = await call(url, 'fundWallet', 'POST', '/v1/wallets/fund', {
      headers: { 'x-service-api-key': creds.secretKey },
      body: { publicKey },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(seen, [{ body: { publicKey } }]);
  });
});
