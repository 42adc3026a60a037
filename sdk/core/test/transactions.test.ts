import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDpopSigner, createOnboardClient, tx } from '../src/index';

const HASH = 'e1f426bb7c19298b282649eb739dec4740492e6e94d316db89f66166e78ae854';
const G = 'GA2UVK3AHD3LAKYQSELNKDEZRA2EK3MXABMAF7KDRZCGLUZ2GCMPW27N';
const PAYMENT = { type: 'payment', destination: G, asset: 'native', amount: '10' } as const;
const BUILT = {
  txId: 'tx_01JD3X5K7Q9T2M4N6P8R0S1V3W',
  status: 'built',
  unsignedXdr: 'AAAAAgAAAAA=',
  networkPassphrase: 'Test SDF Network ; September 2015',
  estimatedFeeXlm: '0.0000200',
  summary: { title: 'Send 10 XLM', lines: ['To GA2U...W27N'] },
};

interface Seen {
  method: string;
  path: string;
  idempotencyKey: string | null;
  body: unknown;
}
type Answer = { status: number; body: unknown } | 'network-down';

/** A client whose fetch records each request and answers from `route` (method + path -> answer). */
function fakeClient(route: (seen: Seen, count: number) => Answer) {
  const seen: Seen[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const text = await request.text();
    const entry: Seen = {
      method: request.method,
      path: new URL(request.url).pathname,
      idempotencyKey: request.headers.get('idempotency-key'),
      body: text ? JSON.parse(text) : undefined,
    };
    seen.push(entry);
    const answer = route(entry, seen.filter((s) => s.path === entry.path).length);
    if (answer === 'network-down') throw new TypeError('fetch failed');
    return new Response(JSON.stringify(answer.body), {
      status: answer.status,
      headers: { 'content-type': 'application/json' },
    });
  };
  return { client: createOnboardClient({ baseUrl: 'http://onboard.test', fetch }), seen };
}

const ok = (status: number, code: string, content: unknown): Answer => ({
  status,
  body: { content, code, success: true },
});
const fail = (status: number, body: Record<string, unknown>): Answer => ({ status, body: { success: false, ...body } });
const signed = ok(200, 'TX_SIGNED', { txId: BUILT.txId, signedXdr: 'AAAAAgSIGNED=' });

describe('@onboard/core tx', () => {
  test('build answers { status: built, ... } with the fields of the built transaction', async () => {
    const { client, seen } = fakeClient(() => ok(201, 'TX_BUILT', BUILT));
    const out = await tx.build(client, {
      operation: PAYMENT,
      memo: { type: 'text', value: 'order 42' },
      timeoutSeconds: 30,
    });
    assert.deepEqual(out, BUILT);
    assert.deepEqual(seen[0]?.body, {
      operation: PAYMENT,
      memo: { type: 'text', value: 'order 42' },
      timeoutSeconds: 30,
    });
    assert.equal(seen[0]?.path, '/v1/tx/build');
    assert.match(seen[0]?.idempotencyKey ?? '', /^[0-9a-f-]{36}$/);
  });

  test('build errors become { status: error, code, message, details } without throwing', async () => {
    const { client } = fakeClient(() =>
      fail(400, {
        code: 'VALIDATION_ERROR',
        message: 'Request validation failed',
        details: { fieldErrors: { 'operation.amount': ['bad'] } },
      }),
    );
    const out = await tx.build(client, { operation: PAYMENT });
    assert.deepEqual(out, {
      status: 'error',
      code: 'VALIDATION_ERROR',
      httpStatus: 400,
      message: 'Request validation failed',
      details: { fieldErrors: { 'operation.amount': ['bad'] } },
    });
  });

  test('signAndSubmit signs by txId, then submits the signed XDR with the given Idempotency-Key: success', async () => {
    const { client, seen } = fakeClient(({ path }) =>
      path === '/v1/tx/sign'
        ? signed
        : ok(200, 'TX_SUBMITTED', {
            txId: BUILT.txId,
            hash: HASH,
            status: 'success',
            resultCode: 'tx_success',
            feeXlm: '0.0000200',
            ledger: 42,
            policy: { decision: 'allow', reasons: [] },
          }),
    );
    const out = await tx.signAndSubmit(client, { txId: BUILT.txId }, { idempotencyKey: 'pay-order-42' });
    assert.deepEqual(out, {
      status: 'success',
      txId: BUILT.txId,
      hash: HASH,
      feeXlm: '0.0000200',
      ledger: 42,
      resultCode: 'tx_success',
      policy: { decision: 'allow', reasons: [] },
    });
    assert.deepEqual(
      seen.map((s) => [s.path, s.body]),
      [
        ['/v1/tx/sign', { txId: BUILT.txId }],
        ['/v1/tx/submit', { signedXdr: 'AAAAAgSIGNED=' }],
      ],
    );
    assert.equal(seen[1]?.idempotencyKey, 'pay-order-42');
  });

  test('signAndSubmit by unsigned XDR: pending; a generated key is sent on submit and handed back for a safe retry', async () => {
    let submits = 0;
    const { client, seen } = fakeClient(({ path }) => {
      if (path === '/v1/tx/sign') return signed;
      submits++;
      // The first submit is answered like a lost connection; the library does not retry it on its own...
      return submits === 1
        ? 'network-down'
        : ok(200, 'TX_SUBMITTED', { txId: BUILT.txId, hash: HASH, status: 'pending', feeXlm: '0.0000200' });
    });
    const first = await tx.signAndSubmit(client, { unsignedXdr: 'AAAAAgAAAAA=' });
    assert.equal(first.status, 'error');
    assert.equal(first.status === 'error' && first.code, 'NETWORK_ERROR');
    assert.equal(first.status === 'error' && first.httpStatus, 0);
    const key = seen.find((s) => s.path === '/v1/tx/submit')?.idempotencyKey;
    assert.match(key ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // ...but hands back the key, so the caller's retry is the same submission (replayed by the server, not paid twice).
    assert.equal(first.status === 'error' && first.idempotencyKey, key);
    const retry = await tx.signAndSubmit(client, { unsignedXdr: 'AAAAAgAAAAA=' }, { idempotencyKey: key! });
    assert.deepEqual(retry, { status: 'pending', txId: BUILT.txId, hash: HASH, feeXlm: '0.0000200' });
    assert.deepEqual(
      seen.filter((s) => s.path === '/v1/tx/submit').map((s) => s.idempotencyKey),
      [key, key],
    );
    assert.deepEqual(seen[0]?.body, { unsignedXdr: 'AAAAAgAAAAA=' });
    // A new call without a key is a new submission.
    await tx.signAndSubmit(client, { unsignedXdr: 'AAAAAgAAAAA=' });
    assert.notEqual(seen.at(-1)?.idempotencyKey, key);
  });

  test("the library's own retry (a DPoP nonce refresh) repeats the submit with the same Idempotency-Key", async () => {
    const submits: (string | null)[] = [];
    const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      const request = new Request(input, init);
      const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
        new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
      if (new URL(request.url).pathname === '/v1/tx/sign')
        return json(200, { content: { txId: BUILT.txId, signedXdr: 'AAAA' }, code: 'TX_SIGNED', success: true });
      submits.push(request.headers.get('idempotency-key'));
      if (submits.length === 1) {
        return json(
          401,
          { code: 'SDK_AUTH_DPOP_USE_NONCE', success: false },
          { 'dpop-nonce': 'n2', 'www-authenticate': 'DPoP error="use_dpop_nonce"' },
        );
      }
      return json(200, {
        content: { txId: BUILT.txId, hash: HASH, status: 'pending' },
        code: 'TX_SUBMITTED',
        success: true,
      });
    };
    const client = createOnboardClient({ baseUrl: 'http://onboard.test', fetch, dpop: await createDpopSigner() });
    const out = await tx.signAndSubmit(client, { txId: BUILT.txId });
    assert.equal(out.status, 'pending');
    assert.equal(submits.length, 2);
    assert.ok(submits[0]);
    assert.equal(submits[1], submits[0]);
  });

  test('TX_SUBMIT_FAILED passes resultCode through; a sign failure stops before submit', async () => {
    const { client, seen } = fakeClient(({ path }) =>
      path === '/v1/tx/sign'
        ? signed
        : fail(422, {
            code: 'TX_SUBMIT_FAILED',
            message: 'Stellar rejected the transaction',
            resultCode: 'op_underfunded',
          }),
    );
    const out = await tx.signAndSubmit(client, { txId: BUILT.txId }, { idempotencyKey: 'k1' });
    assert.deepEqual(out, {
      status: 'error',
      code: 'TX_SUBMIT_FAILED',
      httpStatus: 422,
      message: 'Stellar rejected the transaction',
      resultCode: 'op_underfunded',
      idempotencyKey: 'k1',
    });

    const refused = fakeClient(() =>
      fail(422, { code: 'TX_UNSUPPORTED_OPERATION', message: 'setOptions changing signers is not signed' }),
    );
    const denied = await tx.signAndSubmit(refused.client, { unsignedXdr: 'AAAA' });
    assert.equal(denied.status === 'error' && denied.code, 'TX_UNSUPPORTED_OPERATION');
    assert.deepEqual(
      refused.seen.map((s) => s.path),
      ['/v1/tx/sign'],
    );
    assert.equal(seen.length, 2);
  });

  test('run: success, pending and policy denials (403) map to outcomes; the key is sent', async () => {
    const answers: Answer[] = [
      ok(200, 'TX_RUN_COMPLETED', {
        txId: BUILT.txId,
        hash: HASH,
        status: 'success',
        ledger: 7,
        resultCode: 'tx_success',
      }),
      ok(200, 'TX_RUN_COMPLETED', { txId: BUILT.txId, hash: HASH, status: 'pending' }),
      fail(403, { code: 'TX_POLICY_ASSET_NOT_APPROVED', message: 'EURC is not an approved asset' }),
    ];
    const { client, seen } = fakeClient((_, n) => answers[n - 1]!);
    assert.deepEqual(await tx.run(client, { operation: PAYMENT }, { idempotencyKey: 'run-1' }), {
      status: 'success',
      txId: BUILT.txId,
      hash: HASH,
      ledger: 7,
      resultCode: 'tx_success',
    });
    assert.deepEqual(await tx.run(client, { operation: PAYMENT }), { status: 'pending', txId: BUILT.txId, hash: HASH });
    const denied = await tx.run(client, { operation: PAYMENT });
    assert.equal(denied.status === 'error' && denied.code, 'TX_POLICY_ASSET_NOT_APPROVED');
    assert.equal(denied.status === 'error' && denied.httpStatus, 403);
    assert.equal(seen[0]?.path, '/v1/tx/run');
    assert.deepEqual(seen[0]?.body, { operation: PAYMENT });
    assert.equal(seen[0]?.idempotencyKey, 'run-1');
    assert.ok(seen[1]?.idempotencyKey && seen[2]?.idempotencyKey && seen[1].idempotencyKey !== seen[2].idempotencyKey);
  });

  test('run dryRun: an allow is dry_run with the policy and fee (no hash); a deny is an error with details.policy', async () => {
    const policy = { decision: 'deny', reasons: [{ code: 'TX_POLICY_MAX_FEE_EXCEEDED', message: 'fee too high' }] };
    const answers: Answer[] = [
      ok(200, 'TX_RUN_COMPLETED', {
        status: 'dry_run',
        dryRun: true,
        feeXlm: '0.00002',
        policy: { decision: 'allow', reasons: [] },
      }),
      ok(200, 'TX_RUN_COMPLETED', { status: 'dry_run', dryRun: true, feeXlm: '0.00002', policy }),
      // A dry run cannot be read as a submission: a success without its hash is a malformed answer.
      ok(200, 'TX_RUN_COMPLETED', { status: 'success', txId: BUILT.txId }),
    ];
    const { client, seen } = fakeClient((_, n) => answers[n - 1]!);
    assert.deepEqual(await tx.run(client, { operation: PAYMENT }, { dryRun: true }), {
      status: 'dry_run',
      feeXlm: '0.00002',
      policy: { decision: 'allow', reasons: [] },
    });
    assert.deepEqual(seen[0]?.body, { operation: PAYMENT, dryRun: true });
    assert.deepEqual(await tx.run(client, { operation: PAYMENT }, { dryRun: true }), {
      status: 'error',
      code: 'TX_POLICY_MAX_FEE_EXCEEDED',
      httpStatus: 200,
      message: 'fee too high',
      details: { policy, dryRun: true },
    });
    const malformed = await tx.run(client, { operation: PAYMENT });
    assert.equal(malformed.status, 'error');
    assert.equal((malformed as { code: string }).code, 'INVALID_RESPONSE');
  });

  test('an unreachable service and a non-envelope answer are error outcomes', async () => {
    const down = fakeClient(() => 'network-down');
    const out = await tx.run(down.client, { operation: PAYMENT }, { idempotencyKey: 'k' });
    assert.deepEqual(out, {
      status: 'error',
      code: 'NETWORK_ERROR',
      httpStatus: 0,
      message: 'fetch failed',
      idempotencyKey: 'k',
    });
    const built = await tx.build(down.client, { operation: PAYMENT });
    assert.equal(built.status === 'error' && built.code, 'NETWORK_ERROR');
    const html = fakeClient(() => ({ status: 502, body: 'bad gateway' }));
    const bad = await tx.run(html.client, { operation: PAYMENT });
    assert.equal(bad.status === 'error' && bad.code, 'INVALID_RESPONSE');
  });

  const record = (status: string, extra: Record<string, unknown> = {}) =>
    ok(200, 'TX_FETCHED', {
      id: BUILT.txId,
      hash: HASH,
      network: 'testnet',
      status,
      operation: 'payment',
      summary: 'Sent 10 XLM',
      createdAt: '2026-11-21T10:15:30.000Z',
      ...extra,
    });

  test('waitForTransaction polls through PENDING and a network blip until SUCCESS', async () => {
    const answers: Answer[] = [
      record('PENDING'),
      'network-down',
      record('PENDING'),
      record('SUCCESS', { ledger: 99, feeXlm: '0.0000200', resultCode: 'tx_success' }),
    ];
    const { client, seen } = fakeClient((_, n) => answers[n - 1]!);
    const out = await tx.waitForTransaction(client, HASH, { intervalMs: 1 });
    assert.deepEqual(out, {
      status: 'success',
      txId: BUILT.txId,
      hash: HASH,
      feeXlm: '0.0000200',
      ledger: 99,
      resultCode: 'tx_success',
    });
    assert.equal(seen.length, 4);
    assert.ok(seen.every((s) => s.method === 'GET' && s.path === `/v1/tx/${HASH}`));
  });

  test('waitForTransaction: FAILED is an error with resultCode; TX_NOT_FOUND answers at once; a timeout answers pending', async () => {
    const failed = fakeClient(() => record('FAILED', { ledger: 5, resultCode: 'op_underfunded' }));
    assert.deepEqual(await tx.waitForTransaction(failed.client, HASH, { intervalMs: 1 }), {
      status: 'error',
      code: 'TX_SUBMIT_FAILED',
      httpStatus: 200,
      message: 'Stellar rejected the transaction',
      resultCode: 'op_underfunded',
      details: { txId: BUILT.txId, hash: HASH, ledger: 5, resultCode: 'op_underfunded' },
    });

    const missing = fakeClient(() => fail(404, { code: 'TX_NOT_FOUND', message: 'No transaction with this hash' }));
    const notFound = await tx.waitForTransaction(missing.client, HASH, { intervalMs: 1 });
    assert.equal(notFound.status === 'error' && notFound.code, 'TX_NOT_FOUND');
    assert.equal(missing.seen.length, 1);

    const slow = fakeClient(() => record('PENDING'));
    const started = Date.now();
    const pending = await tx.waitForTransaction(slow.client, HASH, { timeoutMs: 60, intervalMs: 10 });
    assert.deepEqual(pending, { status: 'pending', txId: BUILT.txId, hash: HASH });
    assert.ok(Date.now() - started < 1_000);
    assert.ok(slow.seen.length >= 2);

    const down = fakeClient(() => 'network-down');
    const unreachable = await tx.waitForTransaction(down.client, HASH, { timeoutMs: 20, intervalMs: 5 });
    assert.equal(unreachable.status === 'error' && unreachable.code, 'NETWORK_ERROR');
  });
});
