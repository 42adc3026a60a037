// The conformance proxy the test runner puts in front of every scenario suite (tests/support/conformanceProxy.ts and
// conformanceHook.ts): the live service behind Prism's validating proxy, reached by the generated client at the
// service's own URL, as a scenario suite reaches it. Answers come through unchanged, DPoP proofs for the URL the test
// addressed still pass, and none of the service's answers breaks the contract. Then what makes the run fail: a
// violating answer (from a stand-in upstream that breaks the contract on purpose), an answer Prism would not pass on
// unchanged, and a request that reaches the router otherwise than the hook sent it; and the requests that go direct,
// with their reasons, and a service that cannot be reached failing the fetch as it would without the proxy.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '../../generated/client/client';
import * as sdk from '../../generated/client/sdk.gen';
import { freePort } from '../../src/infra/freePort';
import { headersFor, seedCredentials, withSessions, type SeededCredentials } from '../support/credentials';
import { HEADERS, RECORDS_DIR_ENV, type ProxyRecord } from '../support/conformance';
import { routeThroughConformanceProxy, unforwardable, type HookConfig } from '../support/conformanceHook';
import { readRecords, startConformanceProxy, type ConformanceProxy } from '../support/conformanceProxy';
import { startTestService, type TestService } from '../support/service';

const VALID_G = 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2';
const FILE = 'tests/contract/prism-proxy.test.ts';

describe('the conformance proxy in front of the live service', () => {
  let svc: TestService;
  let proxy: ConformanceProxy;
  let hook: HookConfig;
  let unroute: () => void;
  let creds: SeededCredentials;
  let reportDir: string;
  before(async () => {
    svc = await startTestService();
    creds = await withSessions(svc.deps, await seedCredentials(svc.deps.db));
    proxy = await startConformanceProxy();
    hook = { proxyUrl: proxy.url, recordsDir: proxy.env[RECORDS_DIR_ENV]!, file: FILE };
    unroute = routeThroughConformanceProxy(svc.url, hook);
    reportDir = mkdtempSync(join(tmpdir(), 'onboard-conformance-report-'));
  });
  after(async () => {
    unroute?.();
    await proxy?.stop();
    await svc?.stop();
    if (reportDir) rmSync(reportDir, { recursive: true, force: true });
  });

  /** The records written since `from` (an index into all records). */
  const records = (from = 0): ProxyRecord[] => readRecords(hook.recordsDir).slice(from);

  /** A generated client at the service's URL whose requests carry the requirement's credentials and a fresh proof. */
  function signedClient(requirement: string[]) {
    const client = createClient({ baseUrl: svc.url });
    client.interceptors.request.use(async (request) => {
      const target = { method: request.method, url: request.url };
      for (const [name, value] of Object.entries(await headersFor(requirement, creds, target)))
        request.headers.set(name, value);
      return request;
    });
    return client;
  }

  /** Every request since `from` went through Prism, was answered by the service and broke nothing. */
  function allConforming(from: number, expected: number): void {
    const since = records(from);
    assert.equal(since.length, expected, JSON.stringify(since));
    for (const r of since) {
      assert.equal(r.kind, 'proxied', JSON.stringify(r));
      if (r.kind !== 'proxied') continue;
      assert.deepEqual(r.violations, [], `${r.operationId} ${r.status}`);
      assert.equal(r.prismAnswered, undefined, `${r.operationId}: Prism answered itself`);
    }
  }

  test('getHealth and getReadiness: answered by the service through Prism, the harness headers taken off', async () => {
    const from = records().length;
    const client = createClient({ baseUrl: svc.url });
    const health = await sdk.getHealth({ client });
    assert.equal(health.response!.status, 200);
    assert.equal(health.data?.code, 'HEALTHY');
    for (const name of [...health.response!.headers.keys()])
      assert.ok(!name.startsWith('x-conformance-') && name !== HEADERS.violations, name);
    const ready = await sdk.getReadiness({ client });
    assert.equal(ready.data?.content.status, 'ready');
    allConforming(from, 2);
    assert.deepEqual(
      records(from).map((r) => [r.kind, r.operationId, r.kind === 'proxied' && r.status]),
      [
        ['proxied', 'getHealth', 200],
        ['proxied', 'getReadiness', 200],
      ],
    );
  });

  test('fundWallet: 404 for a wallet the app does not have, 400 with fieldErrors, 401 without a key', async () => {
    const from = records().length;
    const client = createClient({ baseUrl: svc.url, headers: { 'x-service-api-key': creds.secretKey } });
    const built = await sdk.fundWallet({ client, body: { publicKey: VALID_G } });
    assert.equal(built.response!.status, 404);
    const invalid = await sdk.fundWallet({ client, body: { publicKey: 'GABC' } });
    assert.equal(invalid.response!.status, 400);
    // Prism's copy of the contract has no security requirements: the gate's own 401 comes through.
    const anonymous = await sdk.fundWallet({
      client: createClient({ baseUrl: svc.url }),
      body: { publicKey: VALID_G },
    });
    assert.equal(anonymous.response!.status, 401);
    allConforming(from, 3);
  });

  test('SDK and Dashboard operations: DPoP proofs name the URL the test addressed, and pass', async () => {
    const from = records().length;
    const sdkClient = signedClient(['publishableKey', 'userSession', 'dpopProof']);
    // The gate accepted key, session and proof: the answer is about the user (no wallet yet), not a 401.
    const history = await sdk.getTxHistory({ client: sdkClient, query: { limit: 10, offset: 0 } });
    assert.deepEqual([history.response!.status, (history.error as { code?: string }).code], [404, 'WALLET_NOT_FOUND']);
    const dashboard = signedClient(['operatorSession', 'dpopProof']);
    const apps = await sdk.listApps({ client: dashboard });
    assert.equal(apps.response!.status, 200, JSON.stringify(apps.error));
    const me = await sdk.getCurrentOperator({ client: dashboard });
    assert.equal(me.response!.status, 200, JSON.stringify(me.error));
    allConforming(from, 3);
  });

  test('a request Prism would not forward as sent goes direct, with the reason; outside the contract too', async () => {
    const from = records().length;
    // A space after the colon: Prism would forward its own re-serialization, without it.
    const spaced = await fetch(`${svc.url}/v1/wallets/fund`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-api-key': creds.secretKey },
      body: `{"publicKey": "${VALID_G}"}`,
    });
    assert.equal(spaced.status, 404);
    const unknown = await fetch(`${svc.url}/v1/nope`);
    assert.equal(unknown.status, 404);
    assert.deepEqual(records(from), [
      {
        kind: 'direct',
        file: FILE,
        operationId: 'fundWallet',
        method: 'POST',
        path: '/v1/wallets/fund',
        reason: 'a JSON body Prism would re-serialize to other bytes',
      },
      { kind: 'direct', file: FILE, method: 'GET', path: '/v1/nope', reason: 'a path outside the contract' },
    ]);
  });

  test('what Prism forwards as sent and what it would not', () => {
    const json = { 'content-type': 'application/json' };
    const ok = (method: string, target: string, body?: string, headers: Record<string, string> = json) =>
      unforwardable(method, target, headers, body === undefined ? undefined : Buffer.from(body));
    assert.equal(ok('POST', '/v1/wallets/fund', '{"publicKey":"G"}'), undefined);
    assert.equal(ok('GET', '/v1/tx/history?limit=10&from=2026-11-20T10:00:00Z&q=a%20b'), undefined);
    assert.equal(ok('POST', '/v1/x', 'plain text', { 'content-type': 'text/plain' }), undefined);
    assert.match(ok('POST', '/v1/x', '{"a": 1}')!, /re-serialize/);
    assert.match(ok('POST', '/v1/x', '{"a":1')!, /does not parse/);
    assert.match(ok('POST', '/v1/x', 'null')!, /drops it/);
    assert.match(ok('POST', '/v1/x', '"text"')!, /unquoted/);
    assert.match(ok('GET', '/v1/x', '{}')!, /GET with a body/);
    assert.match(ok('HEAD', '/v1/x')!, /HEAD request/);
    assert.match(ok('GET', '/v1/x?__server=http://elsewhere')!, /__server/);
    assert.match(ok('GET', '/v1/a/../b')!, /path Prism would rewrite/);
    assert.match(
      unforwardable('POST', '/v1/x', { 'content-type': 'text/plain' }, Buffer.from([0xff, 0xfe]))!,
      /not UTF-8/,
    );
    assert.match(ok('POST', '/v1/x', '{}', { 'content-type': 'application/json; charset=latin1' })!, /charset/);
  });

  describe('what fails the run', () => {
    let standIn: Server;
    let standInUrl: string;
    let unrouteStandIn: () => void;
    /** What the stand-in answers next: a status, headers and body bytes. */
    let answer: { status: number; headers: Record<string, string>; body: string };
    before(async () => {
      standIn = createServer((req, res) => {
        req.resume();
        req.on('end', () => res.writeHead(answer.status, answer.headers).end(answer.body));
      });
      await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve));
      standInUrl = `http://127.0.0.1:${(standIn.address() as { port: number }).port}`;
      unrouteStandIn = routeThroughConformanceProxy(standInUrl, hook);
    });
    after(async () => {
      unrouteStandIn?.();
      await new Promise((resolve) => standIn?.close(resolve));
    });

    test('a violating answer reaches the test as sent, and the report names it', async () => {
      const from = records().length;
      answer = { status: 200, headers: { 'content-type': 'application/json' }, body: '{"healthy":"very"}' };
      const res = await fetch(`${standInUrl}/health`);
      assert.equal(res.status, 200);
      assert.equal(await res.text(), '{"healthy":"very"}');
      assert.equal(res.headers.get(HEADERS.violations), null);
      const [record] = records(from);
      assert.ok(record?.kind === 'proxied' && record.operationId === 'getHealth');
      assert.ok(record.violations.some((v) => v.severity === 'Error' && /required property 'success'/.test(v.message)));

      const outcome = proxy.report({ dir: reportDir });
      assert.ok(
        outcome.failures.some((f) =>
          /^tests\/contract\/prism-proxy.test.ts: GET \/health \(getHealth\) answered 200: Error/.test(f),
        ),
        outcome.failures.join('\n'),
      );
      const written = JSON.parse(readFileSync(join(reportDir, 'prism-proxy-report.json'), 'utf8'));
      assert.ok(written.operations.getHealth.violations >= 1);
      assert.match(readFileSync(join(reportDir, 'prism-proxy-report.md'), 'utf8'), /## Violations \([1-9]/);
    });

    test('an answer Prism would not pass on unchanged is a finding', async () => {
      answer = { status: 200, headers: { 'content-type': 'application/json' }, body: '{"success": true}' };
      const res = await fetch(`${standInUrl}/health`);
      assert.equal(res.status, 200);
      const outcome = proxy.report({ dir: reportDir });
      assert.ok(
        outcome.failures.some((f) =>
          f.endsWith('GET /health (getHealth): a JSON body Prism re-serializes to other bytes'),
        ),
        outcome.failures.join('\n'),
      );
    });

    test('a request that reaches the router otherwise than the hook sent it is a finding', async () => {
      answer = { status: 200, headers: { 'content-type': 'application/json' }, body: '{}' };
      // Straight to Prism with the harness's headers, but a digest of another request.
      const res = await fetch(`${proxy.url}/health`, {
        headers: { [HEADERS.upstream]: standInUrl, [HEADERS.digest]: 'a.b.c', [HEADERS.file]: FILE },
      });
      await res.arrayBuffer();
      const outcome = proxy.report({ dir: reportDir });
      assert.ok(
        outcome.failures.some((f) => f.endsWith('the request reached the service altered (target, headers, body)')),
        outcome.failures.join('\n'),
      );
    });

    test('a service that cannot be reached fails the fetch as it would without the proxy', async () => {
      const closed = `http://127.0.0.1:${await freePort()}`;
      const unrouteClosed = routeThroughConformanceProxy(closed, hook);
      try {
        const from = records().length;
        await assert.rejects(fetch(`${closed}/health`), (err: Error & { cause?: { code?: string } }) => {
          assert.equal(err.cause?.code, 'ECONNREFUSED');
          return true;
        });
        const [record] = records(from);
        assert.ok(record?.kind === 'proxied' && record.unreached === 'ECONNREFUSED', JSON.stringify(record));
      } finally {
        unrouteClosed();
      }
    });
  });
});
