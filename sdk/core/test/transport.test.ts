// The client's transport (transport.ts and the DPoP wrapper): time limits, retries only where a repeat cannot act
// twice, the nonce dance, proofs on the server's clock.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { createDpopSigner, createOnboardClient, RequestTimeoutError } from '../src/index';
import { dpopFetch } from '../src/dpop';
import { transportFetch } from '../src/transport';
import { fail, FakeService, G, ok, PUB, type FakeAnswer } from './fakeService';

const fast = { timeoutMs: 200, retry: { attempts: 2, baseDelayMs: 1 } };

describe('transport', () => {
  test('GET: a 503 and a network failure are retried, then the answer', async () => {
    const answers: FakeAnswer[] = [fail(503, 'SERVICE_UNAVAILABLE'), 'network-error', ok('WALLET_FOUND', {})];
    const fake = new FakeService().on('GET /v1/wallet', () => answers.shift()!);
    const client = createOnboardClient({
      baseUrl: 'https://x.test',
      apiKey: PUB,
      fetch: transportFetch(fake.fetch, fast),
    });
    const out = await client.getWallet();
    assert.equal(out.ok, true);
    assert.equal(fake.seen.length, 3);
  });

  test('POST without an Idempotency-Key is sent once; with one it is retried', async () => {
    const fake = new FakeService()
      .on('POST /v1/auth/email/start', () => 'network-error')
      .on('POST /v1/tx/run', () => fail(503, 'SERVICE_UNAVAILABLE'));
    const client = createOnboardClient({
      baseUrl: 'https://x.test',
      apiKey: PUB,
      fetch: transportFetch(fake.fetch, fast),
    });
    const once = await client.startEmailSignIn({ body: { email: 'ada@example.com' } });
    assert.equal(!once.ok && once.code, 'NETWORK_ERROR');
    assert.equal(fake.seen.length, 1);
    const keyed = await client.runTransaction({
      body: { operation: { type: 'payment', destination: G, asset: 'native', amount: '1' } },
      headers: { 'Idempotency-Key': 'k-1' },
    });
    assert.equal(!keyed.ok && keyed.code, 'SERVICE_UNAVAILABLE');
    assert.equal(fake.seen.length, 4, 'the keyed request: one send and two retries');
    assert.deepEqual(
      fake.seen.slice(1).map((r) => r.headers.get('idempotency-key')),
      ['k-1', 'k-1', 'k-1'],
    );
  });

  test('a time-out is a NETWORK_ERROR outcome naming the limit; a long Retry-After is not waited for', async () => {
    const slow = new FakeService().on('GET /v1/wallet', () => new Promise(() => undefined));
    const client = createOnboardClient({
      baseUrl: 'https://x.test',
      apiKey: PUB,
      fetch: transportFetch(slow.fetch, { timeoutMs: 50, retry: { attempts: 1, baseDelayMs: 1 } }),
    });
    const out = await client.getWallet();
    assert.equal(!out.ok && out.code, 'NETWORK_ERROR');
    assert.match(!out.ok ? (out.message ?? '') : '', /no answer within 50 ms/);
    assert.equal(slow.seen.length, 2);
    assert.equal(new RequestTimeoutError(5).name, 'RequestTimeoutError');
    const limited = new FakeService().on('GET /v1/wallet', () => ({
      status: 429,
      body: { success: false, code: 'RATE_LIMITED' },
      headers: { 'retry-after': '60' },
    }));
    const started = Date.now();
    const rl = await createOnboardClient({
      baseUrl: 'https://x.test',
      apiKey: PUB,
      fetch: transportFetch(limited.fetch, fast),
    }).getWallet();
    assert.equal(!rl.ok && rl.code, 'RATE_LIMITED');
    assert.equal(limited.seen.length, 1);
    assert.ok(Date.now() - started < 1000);
  });

  test("the caller's abort is not retried", async () => {
    const fake = new FakeService().on('GET /v1/wallet', () => new Promise(() => undefined));
    const fetchOf = transportFetch(fake.fetch, { timeoutMs: 5_000, retry: { attempts: 3, baseDelayMs: 1 } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    await assert.rejects(fetchOf('https://x.test/v1/wallet', { signal: controller.signal }));
    assert.equal(fake.seen.length, 1);
  });

  test('DPoP: a use_dpop_nonce answer is retried once with the new nonce; proofs follow the server clock', async () => {
    let calls = 0;
    const serverAhead = new Date(Date.now() + 3_600_000).toUTCString();
    const fake = new FakeService().on('GET /v1/wallet', () => {
      calls += 1;
      return calls === 1
        ? {
            status: 401,
            body: { success: false, code: 'SDK_AUTH_DPOP_USE_NONCE' },
            headers: {
              'dpop-nonce': 'fresh-nonce',
              'www-authenticate': 'DPoP error="use_dpop_nonce"',
              date: serverAhead,
            },
          }
        : ok('WALLET_FOUND', {});
    });
    const signer = await createDpopSigner();
    const fetchOf = dpopFetch(signer, { accessToken: () => 'at-1' }, fake.fetch);
    const response = await fetchOf('https://x.test/v1/wallet?x=1');
    assert.equal(response.status, 200);
    assert.equal(fake.seen.length, 2);
    const second = decodeJwt(fake.seen[1]!.headers.get('dpop')!);
    assert.equal(second.nonce, 'fresh-nonce');
    assert.equal(second.htu, 'https://x.test/v1/wallet');
    assert.ok(Math.abs((second.iat as number) * 1000 - Date.parse(serverAhead)) < 5_000, 'iat on the server clock');
  });
});
