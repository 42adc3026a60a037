// Hostile requests to the Dashboard's webhook operations (the fuzzer adds U+0000, lone surrogates and Object.prototype
// names to every field of every operation): a body over the 1 MiB limit, a body nested thousands deep, a URL over
// its 2048 characters, Object.prototype names as properties, a cursor of 10 KB (and a URL of 100 KB, which Node's
// HTTP parser refuses with 431 before the service sees it). Each is a 4xx with the envelope,
// never a 5xx, and nothing is stored.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { signInOperator, type OperatorClient } from '../support/operators';
import { startTestService, type TestService } from '../support/service';

let svc: TestService;
let owner: OperatorClient;
let path: string;

before(async () => {
  svc = await startTestService({ WEBHOOK_ALLOW_INSECURE: 'on' });
  owner = await signInOperator(svc);
  const created = await owner.call('createApp', 'POST', '/api/v1/apps', {
    body: { name: 'Hostile hooks', network: 'testnet' },
  });
  path = `/api/v1/apps/${created.body.content.appId}/webhooks`;
});
after(async () => {
  await svc?.stop();
});

const put = (rawBody: string) =>
  owner.rawCall('PUT', path, { rawBody, headers: { 'content-type': 'application/json' } });

test('oversized, deeply nested, overlong and prototype-named bodies: 4xx, nothing stored', async () => {
  const huge = JSON.stringify({ url: `http://127.0.0.1/${'a'.repeat(2 << 20)}`, enabled: true, events: [] });
  const deep = `{"url":"http://127.0.0.1/","enabled":true,"events":${'['.repeat(5000)}${']'.repeat(5000)}}`;
  const overlong = JSON.stringify({ url: `http://127.0.0.1/${'a'.repeat(2049)}`, enabled: true, events: [] });
  const proto = '{"url":null,"enabled":false,"events":[],"__proto__":{"admin":true},"constructor":{"prototype":{}}}';
  for (const [name, body, status] of [
    ['over 1 MiB', huge, 413],
    ['5000 levels deep', deep, 400],
    ['a URL of 2066 characters', overlong, 400],
    ['Object.prototype names', proto, 400],
  ] as const) {
    const res = await put(body);
    assert.equal(res.status, status, `${name}: ${res.text.slice(0, 200)}`);
    assert.equal(res.body.success, false, name);
    assert.equal(typeof res.body.code, 'string', name);
  }
  assert.equal(
    await svc.deps
      .db('webhook_endpoints')
      .count({ n: '*' })
      .then((r) => Number(r[0]!.n)),
    0,
  );
  assert.equal(({} as Record<string, unknown>).admin, undefined, 'nothing polluted');
});

test('a 10 KB cursor or a bad filter on the event log: 400 VALIDATION_ERROR; a 100 KB URL: 431 from the HTTP parser', async () => {
  const tooLong = await owner.rawCall('GET', `${path}/events?cursor=${'A'.repeat(100_000)}`);
  assert.equal(tooLong.status, 431);
  for (const query of [`?cursor=${'A'.repeat(10_000)}`, '?status=__proto__', '?event=constructor', '?limit=1e9']) {
    const res = await owner.rawCall('GET', `${path}/events${query}`);
    assert.equal(res.status, 400, `${query.slice(0, 40)}: ${res.text.slice(0, 200)}`);
    assert.equal(res.body.code, 'VALIDATION_ERROR');
  }
});
