// The ramps' public surfaces against hostile input: the sandbox pages (KYC decision, on-ramp deposit), which anyone who
// has a link can post to, and the provider webhook endpoint, which has no API key at all. Oversized bodies, invalid
// percent-encoding, NUL and odd ids in the path, bodies that are not objects, forged signatures: each is a 4xx with no
// stack trace, and nothing is decided, confirmed or updated.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SYSTEM_ACTOR } from '../../src/domain/audit/auditLog';
import type { App } from '../../src/domain/apps/store';
import { updateRampSettings } from '../../src/domain/ramps/settings';
import { rampApp } from '../support/ramps';
import { startTestService, type TestService } from '../support/service';

let svc: TestService;
let app: App;

before(async () => {
  svc = await startTestService({ KYC_SANDBOX: 'on', RAMPS_SANDBOX: 'on' }, { closeLedgersEveryMs: 200 });
  ({ app } = await rampApp(svc));
  await updateRampSettings(
    svc.deps,
    app,
    {
      providers: [
        {
          providerId: 'etherfuse',
          enabled: true,
          assets: [],
          credentials: { apiKey: 'ef-test-key', webhookSecret: Buffer.from('whsec-test-only').toString('base64') },
        },
      ],
    },
    { actor: SYSTEM_ACTOR, at: new Date() },
  );
});
after(async () => {
  await svc?.stop();
});

const post = (path: string, body: string, contentType: string, headers: Record<string, string> = {}) =>
  fetch(`${svc.url}${path}`, { method: 'POST', headers: { 'content-type': contentType, ...headers }, body });

function noStack(text: string): void {
  assert.ok(!/\bat .+\.(ts|js):\d+/.test(text), `no stack trace in the answer: ${text.slice(0, 300)}`);
}

describe('the sandbox pages', () => {
  test('odd ids in the path (NUL, another prefix, 1,000 characters) are 404 pages', async () => {
    for (const id of ['rmt_%00', 'kys_abc', 'rmt_' + 'a'.repeat(1000), '..%2F..%2Fetc%2Fpasswd']) {
      for (const kind of ['ramps', 'kyc']) {
        const res = await fetch(`${svc.url}/sandbox/${kind}/${id}`);
        assert.ok(res.status === 404, `${kind}/${id.slice(0, 20)}: ${res.status}`);
        noStack(await res.text());
      }
    }
  });

  test('invalid percent-encoding, NUL and an oversized body are 4xx; nothing is decided', async () => {
    const form = 'application/x-www-form-urlencoded';
    for (const body of [
      'decision=%FF%FE',
      'decision=approved%00',
      'decision=%E0%A4%A',
      `decision=${'a'.repeat(5000)}`,
    ]) {
      const res = await post('/sandbox/kyc/kys_doesnotexist123', body, form);
      assert.ok(res.status >= 400 && res.status < 500, `${body.slice(0, 20)}: ${res.status}`);
      noStack(await res.text());
      const ramp = await post('/sandbox/ramps/rmt_doesnotexist123', body.replace('decision', 'confirm'), form);
      assert.ok(ramp.status >= 400 && ramp.status < 500, `ramp ${body.slice(0, 20)}: ${ramp.status}`);
      noStack(await ramp.text());
    }
    assert.equal(
      await svc.deps
        .db('sandbox_fiat_ledger')
        .count({ n: '*' })
        .first()
        .then((r) => Number(r!.n)),
      0,
    );
  });
});

describe('the provider webhook endpoint', () => {
  const path = () => `/v1/ramps/webhooks/etherfuse/${app.id}`;

  test('a body that is not a JSON object, or not JSON, is 400; an oversized one 413', async () => {
    for (const body of ['[]', '"text"', '42', 'null']) {
      const res = await post(path(), body, 'application/json');
      assert.equal(res.status, 400, `${body}: ${res.status}`);
      noStack(await res.text());
    }
    const broken = await post(path(), '{"event": ', 'application/json');
    assert.equal(broken.status, 400);
    const huge = await post(path(), JSON.stringify({ pad: 'x'.repeat(2_000_000) }), 'application/json');
    assert.equal(huge.status, 413);
  });

  test('a forged, missing or odd signature is 401 RAMP_WEBHOOK_SIGNATURE_INVALID; nothing is read further', async () => {
    const body = JSON.stringify({ eventType: 'order_updated', order: { orderId: 'x', status: 'completed' } });
    for (const signature of [
      undefined,
      'sha256=' + '0'.repeat(64),
      'sha256=zz',
      'sha256=' + 'a'.repeat(10_000),
      '\u0000',
    ]) {
      const headers: Record<string, string> = signature === undefined ? {} : { 'x-signature': signature };
      const res = await post(path(), body, 'application/json', headers).catch((err: Error) => err);
      if (res instanceof Error) continue; // fetch itself refuses a NUL in a header: nothing was sent
      assert.equal(res.status, 401, `${String(signature).slice(0, 20)}: ${res.status}`);
      const answer = (await res.json()) as { code: string };
      assert.equal(answer.code, 'RAMP_WEBHOOK_SIGNATURE_INVALID');
    }
  });

  test('an unknown app or a provider the app has not configured is 404; a malformed id 400', async () => {
    const body = '{}';
    assert.equal((await post('/v1/ramps/webhooks/etherfuse/app_doesnotexist', body, 'application/json')).status, 404);
    assert.equal((await post(`/v1/ramps/webhooks/bridge/${app.id}`, body, 'application/json')).status, 404);
    assert.equal((await post(`/v1/ramps/webhooks/sandbox/${app.id}`, body, 'application/json')).status, 400);
    assert.equal((await post('/v1/ramps/webhooks/etherfuse/app_%00', body, 'application/json')).status, 400);
  });
});
