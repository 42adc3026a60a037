// A read-only operation (x-read-only in the contract) runs its handler while the request's DPoP proof is being
// recorded as first used, and answers only once it is: a replayed proof is refused with its 401 whatever the handler
// found. An operation that may write never runs for a replayed proof. On real PostgreSQL, through the service's app
// with stand-in handlers that count their runs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { operations, type OperationId } from '../../generated/server/catalogue.gen';
import { AppError } from '../../src/domain/errors';
import { rawCall } from '../support/http';
import { dpopProof } from '../support/dpop';
import { signInOperator, type OperatorClient } from '../support/operators';
import { serveWithHandlers, startTestService, type TestService } from '../support/service';

describe('DPoP proof record beside a read-only handler', () => {
  let svc: TestService;
  let served: { url: string; close(): Promise<void> };
  let op: OperatorClient;
  let nonce: string;
  const runs = { getCurrentOperator: 0, signOutOperator: 0 };
  let meAnswers: 'content' | 'notFound' = 'content';

  before(async () => {
    svc = await startTestService();
    served = await serveWithHandlers(svc.deps, {
      getCurrentOperator: async () => {
        runs.getCurrentOperator += 1;
        if (meAnswers === 'notFound') throw new AppError('NOT_FOUND', { message: 'stand-in: nothing here' });
        return { content: { operator: { operatorId: 'op_standin' }, apps: [] } as never };
      },
      signOutOperator: async () => {
        runs.signOutOperator += 1;
        return { content: { signedOut: true } as never };
      },
    });
    op = await signInOperator(svc);
    nonce = (await op.rawCall('GET', '/api/v1/me')).headers.get('dpop-nonce')!;
  });
  after(async () => {
    await served?.close();
    await svc?.stop();
  });

  const send = (method: string, path: string, proof: string) =>
    rawCall(served.url, method, path, { headers: { authorization: `DPoP ${op.accessToken}`, dpop: proof } });
  const proofFor = (method: string, path: string) =>
    dpopProof(op.key, { method, url: served.url + path, accessToken: op.accessToken, nonce });

  test('the contract marks only GETs read-only, and getCurrentOperator is one, signOutOperator not', () => {
    for (const [id, entry] of Object.entries(operations) as [OperationId, (typeof operations)[OperationId]][]) {
      if (entry.readOnly) assert.equal(entry.method, 'get', id);
    }
    assert.equal(operations.getCurrentOperator.readOnly, true);
    assert.equal(operations.signOutOperator.readOnly, false);
  });

  test('read-only: the first use answers the handler; its replay is refused although the handler ran again', async () => {
    meAnswers = 'content';
    const proof = await proofFor('GET', '/api/v1/me');
    const before = runs.getCurrentOperator;
    const first = await send('GET', '/api/v1/me', proof);
    assert.equal(first.status, 200, first.text);
    assert.equal(
      (first.body as { content: { operator: { operatorId: string } } }).content.operator.operatorId,
      'op_standin',
    );
    const replay = await send('GET', '/api/v1/me', proof);
    assert.equal(replay.status, 401, replay.text);
    assert.equal((replay.body as { code: string }).code, 'SDK_AUTH_DPOP_INVALID');
    assert.match(replay.text, /already used/);
    assert.doesNotMatch(replay.text, /op_standin/);
    assert.equal(runs.getCurrentOperator - before, 2, 'the read-only handler ran beside the record both times');
  });

  test("read-only: a replay's refusal wins over the handler's own error", async () => {
    meAnswers = 'notFound';
    try {
      const proof = await proofFor('GET', '/api/v1/me');
      assert.equal((await send('GET', '/api/v1/me', proof)).status, 404);
      const replay = await send('GET', '/api/v1/me', proof);
      assert.equal(replay.status, 401, replay.text);
      assert.match(replay.text, /already used/);
    } finally {
      meAnswers = 'content';
    }
  });

  test('read-only: 20 concurrent uses of one proof, exactly one answered', async () => {
    const proof = await proofFor('GET', '/api/v1/me');
    const answers = await Promise.all(Array.from({ length: 20 }, () => send('GET', '/api/v1/me', proof)));
    assert.equal(answers.filter((a) => a.status === 200).length, 1);
    for (const a of answers.filter((x) => x.status !== 200)) assert.match(a.text, /already used/);
  });

  test('not read-only: a replayed proof never reaches the handler', async () => {
    const proof = await proofFor('POST', '/api/v1/auth/logout');
    const before = runs.signOutOperator;
    assert.equal((await send('POST', '/api/v1/auth/logout', proof)).status, 200);
    const replay = await send('POST', '/api/v1/auth/logout', proof);
    assert.equal(replay.status, 401, replay.text);
    assert.match(replay.text, /already used/);
    assert.equal(runs.signOutOperator - before, 1);
  });
});
