// Behind a load balancer (TRUST_PROXY): the limits kept per client address count the address the trusted proxy names
// in X-Forwarded-For, so clients behind one balancer are not one client; a proxy that is not trusted names nothing,
// so a client cannot escape its limit by sending the header itself. Seen through the per-address limit on sign-in
// codes (30 per hour per address and app).
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SENDS_PER_IP_PER_HOUR } from '../../src/operations/sdk-auth/startEmailSignIn';
import { appWithWallet } from '../support/funding';
import { call } from '../support/http';
import { startTestService, type TestService } from '../support/service';
import { testEmail } from '../support/operators';

const started: TestService[] = [];
after(async () => {
  for (const svc of started) await svc.stop();
});

async function serviceWith(env: Record<string, string>) {
  const svc = await startTestService(env);
  started.push(svc);
  const { creds } = await appWithWallet(svc, { funded: false });
  return { svc, creds };
}

/** One sign-in code request per address, each for another email. */
async function codeRequests(svc: TestService, publishableKey: string, forwardedFor: (i: number) => string) {
  const statuses: number[] = [];
  for (let i = 0; i <= SENDS_PER_IP_PER_HOUR; i++) {
    const answer = await call(svc.url, 'startEmailSignIn', 'POST', '/v1/auth/email/start', {
      headers: { 'x-service-api-key': publishableKey, 'x-forwarded-for': forwardedFor(i) },
      body: { email: testEmail(`proxy${i}`) },
    });
    statuses.push(answer.status);
  }
  return statuses;
}

describe('TRUST_PROXY', () => {
  test('trusted (loopback): each forwarded address has its own limit', async () => {
    const { svc, creds } = await serviceWith({ TRUST_PROXY: 'loopback' });
    const distinct = await codeRequests(svc, creds.publishableKey, (i) => `198.51.100.${i + 1}`);
    assert.deepEqual(
      distinct.filter((s) => s !== 200),
      [],
    );
    const same = await codeRequests(svc, creds.publishableKey, () => '198.51.100.200');
    assert.equal(same.filter((s) => s === 200).length, SENDS_PER_IP_PER_HOUR, 'one address still has its limit');
    assert.equal(same.at(-1), 429);
  });

  for (const [label, env] of [
    ['off (the default)', {}],
    ['trusting other addresses than the connection’s', { TRUST_PROXY: '203.0.113.0/24' }],
  ] as const) {
    test(`${label}: the header names nothing, every request counts against the connection's address`, async () => {
      const { svc, creds } = await serviceWith(env);
      const statuses = await codeRequests(svc, creds.publishableKey, (i) => `198.51.100.${i + 1}`);
      assert.equal(statuses.filter((s) => s === 200).length, SENDS_PER_IP_PER_HOUR);
      assert.equal(statuses.at(-1), 429);
    });
  }
});
