// Webhook delivery end to end on the real service (PostgreSQL, the in-process localnet with a ledger every 200 ms,
// the pg-boss job queue) to a real HTTP receiver on this machine (WEBHOOK_ALLOW_INSECURE=on, the development setting),
// with the retry schedule shortened to seconds (WEBHOOK_RETRY_SCHEDULE=0,1,1,1,1): every emitted event type arrives
// with the contract's fields and valid signatures of both kinds; failures are retried on the schedule and end in
// `failed` after 5 attempts; 410 disables the endpoint; redelivery sends the same event again; a rotation signs with
// both secrets for its overlap; `stellar.tx` is tried once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair } from '@stellar/stellar-sdk';
import { updateAppSettings, type App } from '../../src/domain/apps/store';
import { SYSTEM_ACTOR } from '../../src/domain/audit/auditLog';
import { recordOutboxEvent } from '../../src/domain/events/outbox';
import { issueDemoUsdc } from '../../src/domain/treasury/demoUsdc';
import {
  getWebhookConfig,
  rotateWebhookSecret,
  updateWebhookConfig,
  WEBHOOK_EVENTS,
  type WebhookEventName,
} from '../../src/domain/webhooks/endpoints';
import { listWebhookEvents, redeliverWebhookEvent } from '../../src/domain/webhooks/eventLog';
import { startTestService, type TestService } from '../support/service';
import { verifyWebhookWithPublicKey } from '../../sdk/core/src/index';
import { signInUser, type UserClient } from '../support/users';
import { appWithWallet, eventually } from '../support/funding';
import {
  deliveryProblems,
  recordLowBalanceEvent,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../support/webhookReceiver';

let svc: TestService;
let receiver: WebhookReceiver;

before(async () => {
  svc = await startTestService(
    { LEDGER_FOLLOWER: 'on', WEBHOOK_ALLOW_INSECURE: 'on', WEBHOOK_RETRY_SCHEDULE: '0,1,1,1,1' },
    { closeLedgersEveryMs: 200 },
  );
  receiver = await startWebhookReceiver();
});
after(async () => {
  await receiver?.close();
  await svc?.stop();
});

/** Points the app's endpoint at the receiver for `events`; answers the secret. */
async function subscribe(app: App, events: readonly WebhookEventName[] = WEBHOOK_EVENTS): Promise<string> {
  const config = await updateWebhookConfig(svc.deps, {
    appId: app.id,
    url: receiver.url,
    enabled: true,
    events: [...events],
    actor: SYSTEM_ACTOR,
    at: new Date(),
  });
  return config.secret!;
}

const bodyOf = (d: { body: string }) => JSON.parse(d.body) as { id: string; event: string; data: any };
const deliveriesOf = (eventId: string) => receiver.received.filter((d) => bodyOf(d).id === eventId);

async function eventRow(eventId: string) {
  return svc.deps.db('outbox_events').where({ id: eventId }).first();
}

const lowBalanceEvent = (app: App) => recordLowBalanceEvent(svc, app.id);

describe('every event type', () => {
  let app: App;
  let secret: string;
  let alice: UserClient;
  let bob: UserClient;

  before(async () => {
    receiver.answer({ status: 200, body: 'ok' });
    const setup = await appWithWallet(svc);
    await issueDemoUsdc(svc.deps, setup.app);
    // A starting balance of 5 XLM, so that a user can pay another 1 XLM.
    app = (await updateAppSettings(svc.deps.db, setup.app.id, { fundingMode: 'immediate', startingBalanceXlm: '5' }))!;
    secret = await subscribe(app);
    alice = await signInUser(svc, setup.creds);
    bob = await signInUser(svc, setup.creds);
  });

  test('each arrives once per event, with the contract fields, webhook-id = body id, and both signatures valid', async () => {
    const paid = await alice.call('runTransaction', 'POST', '/v1/tx/run', {
      body: { operation: { type: 'payment', destination: bob.signIn.wallet.publicKey, asset: 'native', amount: '1' } },
    });
    assert.ok([200, 202].includes(paid.status), paid.text);
    await lowBalanceEvent(app);
    // wallet.funded comes with a distribution claim and ramp.updated with a ramp, which this scenario does not make
    // (claimDistributionRule's tests, rampsSandbox.test.ts deliver them).
    const emitted = WEBHOOK_EVENTS.filter((e) => e !== 'wallet.funded' && e !== 'ramp.updated');
    const typesReceived = () =>
      new Set(
        receiver.received
          .map(bodyOf)
          .filter((b) => b.event)
          .map((b) => b.event),
      );
    const bobReceived = () =>
      receiver.received
        .map(bodyOf)
        .find((b) => b.event === 'payment.received' && b.data.to === bob.signIn.wallet.publicKey);
    await eventually(
      "every emitted type was delivered, and bob's payment.received",
      async () => emitted.every((t) => typesReceived().has(t)) && bobReceived() !== undefined,
      60_000,
    );

    const ours = receiver.received;
    for (const delivery of ours)
      assert.deepEqual(deliveryProblems(delivery, [secret]), [], delivery.body.slice(0, 300));
    // Every attempt was answered 200: each event arrived exactly once.
    const ids = ours.map((d) => bodyOf(d).id);
    assert.equal(new Set(ids).size, ids.length, 'no event delivered twice');
    const created = ours
      .map(bodyOf)
      .find((b) => b.event === 'wallet.created' && b.data.address === alice.signIn.wallet.publicKey);
    assert.ok(created, 'wallet.created of the signed-in user');
    const received = ours
      .map(bodyOf)
      .find((b) => b.event === 'payment.received' && b.data.to === bob.signIn.wallet.publicKey);
    assert.equal(received?.data.amount, '1');
    assert.equal(received?.data.from, alice.signIn.wallet.publicKey);
    // The receiver has the body before the worker records the answer: wait for the records of what arrived.
    const logged = async () => {
      const { events } = await listWebhookEvents(svc.deps.db, { appId: app.id, limit: 100, offset: 0 });
      return events;
    };
    await eventually('every delivered event is recorded as delivered', async () =>
      (await logged()).filter((e) => ids.includes(e.eventId)).every((e) => e.status !== 'pending'),
    );
    const log = { events: await logged() };
    assert.ok(log.events.length >= emitted.length);
    for (const e of log.events.filter((e) => ids.includes(e.eventId))) {
      assert.equal(e.status, 'delivered', e.eventId);
      assert.equal(e.attempts, 1);
      assert.equal(e.attemptLog[0]?.statusCode, 200);
    }
  });
});

describe('retries, failure, 410, redelivery, rotation', () => {
  let app: App;
  let secret: string;

  before(async () => {
    const setup = await appWithWallet(svc, { funded: false });
    ({ app } = setup);
    secret = await subscribe(app, ['sponsor.balance.low', 'stellar.tx']);
  });

  test('500, 500, then 200: three attempts at least a second apart, the same webhook-id, delivered', async () => {
    receiver.answer({ status: 500, body: 'boom' }, { status: 500 }, { status: 200 });
    const eventId = await lowBalanceEvent(app);
    await eventually('delivered', async () => (await eventRow(eventId)).status === 'delivered', 20_000);
    const attempts = deliveriesOf(eventId);
    assert.equal(attempts.length, 3);
    for (let i = 1; i < attempts.length; i++)
      assert.ok(attempts[i]!.at - attempts[i - 1]!.at >= 850, `attempt ${i + 1} came too soon`);
    assert.equal(new Set(attempts.map((a) => a.headers['webhook-id'])).size, 1);
    const [logged] = (await listWebhookEvents(svc.deps.db, { appId: app.id, limit: 1, offset: 0 })).events;
    assert.deepEqual(
      logged?.attemptLog.map((a) => a.statusCode),
      [500, 500, 200],
    );
    assert.equal(logged?.attemptLog[0]?.responseExcerpt, 'boom');
  });

  test('always 503: five attempts, then failed with no next attempt', async () => {
    receiver.answer({ status: 503 });
    const eventId = await lowBalanceEvent(app);
    await eventually('failed', async () => (await eventRow(eventId)).status === 'failed', 30_000);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(deliveriesOf(eventId).length, 5);
    const row = await eventRow(eventId);
    assert.deepEqual([row.attempts, row.next_attempt_at, row.last_status_code], [5, null, 503]);
    assert.equal(row.last_error, 'Endpoint answered 503');
  });

  let stellarTxId = '';
  test('stellar.tx is tried once', async () => {
    receiver.answer({ status: 500 });
    stellarTxId = await svc.deps.db.transaction((trx) =>
      recordOutboxEvent(svc.deps, trx, {
        appId: app.id,
        type: 'stellar.tx',
        data: {
          hash: 'a'.repeat(64),
          ledger: 5,
          network: 'testnet',
          sourceAccount: Keypair.random().publicKey(),
          feeBump: false,
          operations: [{ type: 'bumpSequence', bumpTo: '1' }],
          envelopeXdr: 'AAAA',
          resultXdr: 'AAAA',
        },
        at: new Date(),
      }),
    );
    await eventually('failed', async () => (await eventRow(stellarTxId)).status === 'failed', 10_000);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(deliveriesOf(stellarTxId).length, 1);
  });

  test('redeliver: the same body and webhook-id again, a new timestamp and signature, delivered', async () => {
    receiver.answer({ status: 200 });
    const redelivered = await redeliverWebhookEvent(svc.deps, { appId: app.id, eventId: stellarTxId, at: new Date() });
    assert.deepEqual([redelivered.status, redelivered.attempts], ['pending', 0]);
    await eventually('delivered', async () => (await eventRow(stellarTxId)).status === 'delivered', 10_000);
    const [first, again] = deliveriesOf(stellarTxId);
    assert.equal(again!.body, first!.body);
    assert.equal(again!.headers['webhook-id'], first!.headers['webhook-id']);
    assert.deepEqual(deliveryProblems(again!, [secret]), []);
  });

  test('rotation with an overlap: both secrets sign (X-Service-Signature with the old one); overlap 0: only the new', async () => {
    receiver.answer({ status: 200 });
    const rotated = await rotateWebhookSecret(svc.deps, {
      appId: app.id,
      overlapSeconds: 3600,
      actor: SYSTEM_ACTOR,
      at: new Date(),
    });
    const during = await lowBalanceEvent(app);
    await eventually('delivered', async () => (await eventRow(during)).status === 'delivered');
    const [d] = deliveriesOf(during);
    assert.equal(String(d!.headers['webhook-signature']).split(' ').length, 2);
    assert.deepEqual(deliveryProblems(d!, [secret]), [], 'the old secret verifies');
    assert.deepEqual(
      deliveryProblems(d!, [rotated.secret]).filter((p) => !p.startsWith('X-Service')),
      [],
      'the new one too',
    );

    const again = await rotateWebhookSecret(svc.deps, {
      appId: app.id,
      overlapSeconds: 0,
      actor: SYSTEM_ACTOR,
      at: new Date(),
    });
    assert.equal(again.previousSecretExpiresAt, null);
    const after = await lowBalanceEvent(app);
    await eventually('delivered', async () => (await eventRow(after)).status === 'delivered');
    const [e] = deliveriesOf(after);
    assert.equal(String(e!.headers['webhook-signature']).split(' ').length, 1);
    assert.deepEqual(deliveryProblems(e!, [again.secret]), []);
    assert.notDeepEqual(deliveryProblems(e!, [rotated.secret]), [], 'the replaced secret no longer verifies');
    secret = again.secret;
  });

  test('410 Gone: failed at once, the endpoint disabled (disabledReason gone); later events are skipped', async () => {
    receiver.answer({ status: 410 });
    const eventId = await lowBalanceEvent(app);
    await eventually('failed', async () => (await eventRow(eventId)).status === 'failed');
    assert.equal(deliveriesOf(eventId).length, 1);
    const config = await getWebhookConfig(svc.deps.db, app.id);
    assert.deepEqual([config.enabled, config.disabledReason], [false, 'gone']);
    const later = await lowBalanceEvent(app);
    assert.equal((await eventRow(later)).status, 'skipped');
  });

  test('asymmetricSignature: each delivery also carries v1a, which verifies with the published public key', async () => {
    receiver.answer({ status: 200 });
    const config = await updateWebhookConfig(svc.deps, {
      appId: app.id,
      url: receiver.url,
      enabled: true,
      events: ['sponsor.balance.low'],
      asymmetricSignature: true,
      actor: SYSTEM_ACTOR,
      at: new Date(),
    });
    const eventId = await lowBalanceEvent(app);
    await eventually('delivered', async () => (await eventRow(eventId)).status === 'delivered');
    const [d] = deliveriesOf(eventId);
    const headers = Object.fromEntries(Object.entries(d!.headers).map(([k, v]) => [k, String(v)]));
    const verified = await verifyWebhookWithPublicKey(d!.body, headers, config.publicKey!);
    assert.equal(verified.ok, true, JSON.stringify(verified));
    assert.deepEqual(deliveryProblems(d!, [secret]), [], 'v1 and X-Service-Signature as before');
  });
});
