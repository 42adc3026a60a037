// Webhook URLs and server-side request forgery (OWASP API7): an app owner chooses where the service sends requests,
// so a URL must not make it reach inside the network. Refused when saved (422 WEBHOOK_URL_NOT_ALLOWED, nothing
// stored) and again at every attempt, which connects only to the address it checked and never follows a redirect:
// non-https, credentials in the URL, IP literals and names resolving to loopback, private, link-local (cloud
// metadata), reserved or IPv4-mapped IPv6 addresses.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { refusedAddress } from '../../src/infra/egress/addresses';
import { signInOperator, type OperatorClient } from '../support/operators';
import { startTestService, type TestService } from '../support/service';
import { recordLowBalanceEvent, startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver';
import { appWithWallet, eventually } from '../support/funding';
import { updateWebhookConfig } from '../../src/domain/webhooks/endpoints';
import { SYSTEM_ACTOR } from '../../src/domain/audit/auditLog';

test('the address rule: every refused class, and public addresses allowed', () => {
  const refused = [
    '127.0.0.1',
    '127.8.9.10',
    '0.0.0.0',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254', // cloud metadata
    '169.254.1.1',
    '100.64.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    '::ffff:127.0.0.1', // IPv4-mapped, dotted
    '::ffff:7f00:1', // IPv4-mapped, hex
    '::ffff:a9fe:a9fe', // 169.254.169.254
    '64:ff9b::10.0.0.1', // NAT64 of a private address
  ];
  for (const address of refused) assert.ok(refusedAddress(address), `${address} must be refused`);
  for (const address of ['1.1.1.1', '93.184.216.34', '172.32.0.1', '2606:4700:4700::1111', '::ffff:1.1.1.1'])
    assert.equal(refusedAddress(address), undefined, `${address} is public`);
  assert.ok(refusedAddress('not-an-ip'));
});

describe('saving a webhook URL (WEBHOOK_ALLOW_INSECURE off, as in production)', () => {
  let svc: TestService;
  let owner: OperatorClient;
  let appId: string;
  before(async () => {
    svc = await startTestService();
    owner = await signInOperator(svc);
    const created = await owner.call('createApp', 'POST', '/api/v1/apps', {
      body: { name: 'SSRF', network: 'testnet' },
    });
    appId = created.body.content.appId;
  });
  after(async () => {
    await svc?.stop();
  });
  const put = (url: string) =>
    owner.call('updateWebhookConfig', 'PUT', `/api/v1/apps/${appId}/webhooks`, {
      body: { url, enabled: true, events: ['stellar.tx'] },
    });

  test('each refused URL: 422 WEBHOOK_URL_NOT_ALLOWED with the reason, and nothing is stored', async () => {
    const cases: [string, RegExp][] = [
      ['http://1.1.1.1/hooks', /must use https/],
      ['https://127.0.0.1/hooks', /points at 127\.0\.0\.1/],
      ['https://localhost:8443/hooks', /resolves to (127\.0\.0\.1|::1)/], // a DNS name resolving to loopback
      ['https://[::1]/hooks', /points at ::1/],
      ['https://[::ffff:127.0.0.1]/hooks', /points at ::ffff:7f00:1|points at ::ffff:127\.0\.0\.1/],
      ['https://169.254.169.254/latest/meta-data', /points at 169\.254\.169\.254/],
      ['https://10.1.2.3/hooks', /points at 10\.1\.2\.3/],
      ['https://[fe80::1]/hooks', /points at fe80::1/],
      ['https://user:secret@1.1.1.1/hooks', /user name or password/],
      ['https://no-such-host.invalid/hooks', /does not resolve/],
    ];
    for (const [url, reason] of cases) {
      const res = await put(url);
      assert.equal(res.status, 422, `${url}: ${res.text}`);
      assert.equal(res.body.code, 'WEBHOOK_URL_NOT_ALLOWED');
      assert.match(res.body.message, reason, url);
      assert.ok(!res.body.message.includes('secret'), 'the URL credentials are not echoed');
    }
    const stored = await svc.deps.db('webhook_endpoints').where({ app_id: appId }).first();
    assert.equal(stored, undefined, 'nothing stored');
  });

  test('a public address is accepted', async () => {
    const res = await put('https://1.1.1.1/hooks');
    assert.equal(res.status, 200, res.text);
  });
});

describe('at delivery time', () => {
  let svc: TestService;
  let target: WebhookReceiver;
  let redirector: WebhookReceiver;
  before(async () => {
    // The development setting lets the receivers on this machine be saved; the checks below are those of each attempt.
    svc = await startTestService({ WEBHOOK_ALLOW_INSECURE: 'on', WEBHOOK_RETRY_SCHEDULE: '0' });
    [target, redirector] = [await startWebhookReceiver(), await startWebhookReceiver()];
  });
  after(async () => {
    await target?.close();
    await redirector?.close();
    await svc?.stop();
  });

  async function appWithEndpoint(url: string): Promise<string> {
    const owner = await signInOperator(svc);
    const created = await owner.call('createApp', 'POST', '/api/v1/apps', {
      body: { name: 'Hooks', network: 'testnet' },
    });
    const appId: string = created.body.content.appId;
    const res = await owner.call('updateWebhookConfig', 'PUT', `/api/v1/apps/${appId}/webhooks`, {
      body: { url, enabled: true, events: ['sponsor.balance.low'] },
    });
    assert.equal(res.status, 200, res.text);
    return appId;
  }
  const event = (on: TestService, appId: string) => recordLowBalanceEvent(on, appId);

  const attemptsOf = (eventId: string) => svc.deps.db('webhook_attempts').where({ event_id: eventId });

  test('a redirect is not followed: the 302 is the (failed) answer, and its target receives nothing', async () => {
    redirector.answer({ status: 302, headers: { location: target.url } });
    const appId = await appWithEndpoint(redirector.url);
    const eventId = await event(svc, appId);
    await eventually('the attempt is recorded', async () => (await attemptsOf(eventId)).length === 1);
    const [attempt] = await attemptsOf(eventId);
    assert.equal(attempt.status_code, 302);
    assert.match(attempt.error, /redirects are not followed/);
    assert.equal(target.received.length, 0);
  });

  test('a host that resolves to a refused address by the time of the attempt: refused, no connection, logged', async () => {
    // A service with the production rule, and an endpoint saved while its name was fine (saved here below the API,
    // as if the name's DNS answer changed since): the attempt checks again, and refuses.
    const secure = await startTestService({ WEBHOOK_RETRY_SCHEDULE: '0' });
    try {
      const { app } = await appWithWallet(secure, { funded: false });
      await updateWebhookConfig(
        { ...secure.deps, webhooks: { ...secure.deps.webhooks!, allowInsecure: true } },
        {
          appId: app.id,
          url: target.url.replace('http://127.0.0.1', 'https://localhost'),
          enabled: true,
          events: ['sponsor.balance.low'],
          actor: SYSTEM_ACTOR,
          at: new Date(),
        },
      );
      const before = target.received.length;
      const eventId = await event(secure, app.id);
      const attempts = () => secure.deps.db('webhook_attempts').where({ event_id: eventId });
      await eventually('the attempt is recorded', async () => (await attempts()).length === 1);
      const [attempt] = await attempts();
      assert.equal(attempt.status_code, null);
      assert.match(attempt.error ?? '', /^refused: the URL resolves to (127\.0\.0\.1|::1), which is a loopback/);
      assert.equal((await secure.deps.db('outbox_events').where({ id: eventId }).first()).status, 'failed');
      assert.equal(target.received.length, before, 'no connection was made');
    } finally {
      await secure.stop();
    }
  });
});
