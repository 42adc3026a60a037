// The live service behind Prism's validating proxy (`prism proxy --errors --validate-request=false`: requests are
// forwarded as sent, so the service's own 400/401 answers are exercised; Prism cannot check the DPoP scheme itself),
// driven by the generated client. Any response that breaks the contract turns into a Prism error or an sl-violations
// header, and fails the test.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createClient } from '../../generated/client/client';
import * as sdk from '../../generated/client/sdk.gen';
import { headersFor, seedCredentials, withSessions, type SeededCredentials } from '../support/credentials';
import { startPrism, type Prism } from '../support/prism';
import { startTestService, type TestService } from '../support/service';

const VALID_G = 'GCQ53WWRBL6HVSDNRMZKFZD7SP5DKYC6JFWSRLPQCVGD6Y42TYIN73Q2';

describe('live service through the Prism validating proxy', () => {
  let svc: TestService;
  let prism: Prism;
  // Real keys stored in the service's database and live sessions, so requests pass the gate.
  let creds: SeededCredentials;
  before(async () => {
    svc = await startTestService();
    creds = await withSessions(svc.deps, await seedCredentials(svc.deps.db));
    prism = await startPrism('proxy', svc.url);
  });
  after(async () => {
    await prism?.stop();
    await svc?.stop();
  });

  /**
   * A generated client whose every request carries the requirement's credentials and a fresh DPoP proof. The proof
   * names the URL the service receives (Prism forwards to it), not Prism's.
   */
  function signedClient(requirement: string[]) {
    const client = createClient({ baseUrl: prism.url });
    client.interceptors.request.use(async (request) => {
      const target = { method: request.method, url: svc.url + new URL(request.url).pathname };
      for (const [name, value] of Object.entries(await headersFor(requirement, creds, target)))
        request.headers.set(name, value);
      return request;
    });
    return client;
  }

  function expectNoViolations(maybe: Response | undefined): Response {
    assert.ok(maybe, 'no response');
    const response = maybe;
    assert.equal(response.headers.get('sl-violations'), null, `violations: ${response.headers.get('sl-violations')}`);
    assert.notEqual(
      response.headers.get('content-type'),
      'application/problem+json',
      `prism reported a violation (${response.status} ${response.url})`,
    );
    return response;
  }

  test('getHealth and getReadiness conform', async () => {
    const client = createClient({ baseUrl: prism.url });
    const health = await sdk.getHealth({ client });
    expectNoViolations(health.response);
    assert.equal(health.response!.status, 200);
    assert.equal(health.data?.code, 'HEALTHY');
    const ready = await sdk.getReadiness({ client });
    expectNoViolations(ready.response);
    assert.equal(ready.data?.content.status, 'ready');
  });

  test('fundWallet answers conform: 404 for a wallet the app does not have, 400 with fieldErrors', async () => {
    const client = createClient({ baseUrl: prism.url, headers: { 'x-service-api-key': creds.secretKey } });
    const built = await sdk.fundWallet({ client, body: { publicKey: VALID_G } });
    expectNoViolations(built.response);
    assert.equal(built.response!.status, 404);
    // Prism answers a request without credentials itself, so the 401s are checked in tests/integration instead.
    const invalid = await sdk.fundWallet({ client, body: { publicKey: 'GABC' } });
    expectNoViolations(invalid.response);
    assert.equal(invalid.response!.status, 400);
  });

  test('SDK, Server and Dashboard operations answer through the proxy without violations', async () => {
    const sdkClient = signedClient(['publishableKey', 'userSession', 'dpopProof']);
    const history = await sdk.getTxHistory({ client: sdkClient, query: { limit: 10, offset: 0 } });
    expectNoViolations(history.response);
    const wallet = await sdk.getWallet({ client: sdkClient });
    expectNoViolations(wallet.response);
    const dashboard = signedClient(['operatorSession', 'dpopProof']);
    const apps = await sdk.listApps({ client: dashboard });
    expectNoViolations(apps.response);
    const me = await sdk.getCurrentOperator({ client: dashboard });
    expectNoViolations(me.response);
    assert.equal(me.response!.status, 200);
  });
});
