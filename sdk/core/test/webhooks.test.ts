// @onboard/core's webhook verification against what the service really sends: headers made by the service's own
// signer (src/domain/webhooks/signing.ts), checked as an app's backend would: both header styles, the 300 s
// tolerance, a rotation's two secrets, a tampered body, a body whose id is not webhook-id.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { verifyServiceSignature, verifyWebhook, verifyWebhookWithPublicKey } from '../src/index';
import {
  newSigningKeyPair,
  newWebhookSecret,
  signatureHeaders,
  signingKeyFrom,
} from '../../../src/domain/webhooks/signing';

const body = JSON.stringify({
  id: 'evt_01JD3X5K7Q9T2M4N6P8R0S1V3W',
  event: 'wallet.created',
  timestamp: '2026-11-21T10:15:30.000Z',
  data: { walletId: 'wal_1', address: 'G...', status: 'pending' },
});
const delivery = (secrets: Parameters<typeof signatureHeaders>[0], at = new Date(), raw = body) =>
  signatureHeaders(secrets, { eventId: 'evt_01JD3X5K7Q9T2M4N6P8R0S1V3W', timestamp: at, body: raw });

test('a delivery verifies with its secret and answers the parsed event', () => {
  const secret = newWebhookSecret();
  const verified = verifyWebhook(body, delivery({ current: secret }), secret);
  assert.equal(verified.ok, true);
  assert.equal(verified.ok && verified.event.event, 'wallet.created');
});

test('a tampered body, another secret or a timestamp over 300 s away: invalid_signature', () => {
  const secret = newWebhookSecret();
  const headers = delivery({ current: secret });
  assert.deepEqual(pick(verifyWebhook(body.replace('pending', 'active'), headers, secret)), 'invalid_signature');
  assert.deepEqual(pick(verifyWebhook(body, headers, newWebhookSecret())), 'invalid_signature');
  const old = delivery({ current: secret }, new Date(Date.now() - 301_000));
  assert.deepEqual(pick(verifyWebhook(body, old, secret)), 'invalid_signature');
  const future = delivery({ current: secret }, new Date(Date.now() + 301_000));
  assert.deepEqual(pick(verifyWebhook(body, future, secret)), 'invalid_signature');
});

test('during a rotation either secret verifies; missing headers and a foreign id are refused', () => {
  const [oldSecret, newSecret] = [newWebhookSecret(), newWebhookSecret()];
  const headers = delivery({ current: newSecret, previous: oldSecret });
  assert.equal(verifyWebhook(body, headers, oldSecret).ok, true);
  assert.equal(verifyWebhook(body, headers, newSecret).ok, true);
  assert.equal(verifyWebhook(body, new Headers(headers), [newWebhookSecret(), newSecret]).ok, true, 'a Headers object');
  assert.equal(pick(verifyWebhook(body, { 'webhook-id': 'evt_x' }, newSecret)), 'missing_headers');
  const other = body.replace('evt_01JD3X5K7Q9T2M4N6P8R0S1V3W', 'evt_other');
  assert.equal(
    pick(verifyWebhook(other, delivery({ current: newSecret }, new Date(), other), newSecret)),
    'invalid_body',
  );
});

test('X-Service-Signature: the body HMAC under the whole secret string', async () => {
  const secret = newWebhookSecret();
  const headers = delivery({ current: secret });
  assert.equal(await verifyServiceSignature(body, headers['x-service-signature'], secret), true);
  assert.equal(await verifyServiceSignature(`${body} `, headers['x-service-signature'], secret), false);
  assert.equal(await verifyServiceSignature(body, 'sha256=00', secret), false);
  assert.equal(await verifyServiceSignature(body, undefined, secret), false);
});

function pick(result: ReturnType<typeof verifyWebhook>): string {
  return result.ok ? 'ok' : result.reason;
}

test('v1a: the Ed25519 signature verifies with the published public key only; v1 still verifies beside it', async () => {
  const secret = newWebhookSecret();
  const pair = newSigningKeyPair();
  assert.match(pair.publicKey, /^whpk_[0-9A-Za-z+/]{43}=$/);
  const headers = delivery({ current: secret, ed25519: signingKeyFrom(pair.privateKey) });
  assert.match(headers['webhook-signature']!, /^v1,\S+ v1a,[A-Za-z0-9+/]{86}==$/);
  assert.equal((await verifyWebhookWithPublicKey(body, headers, pair.publicKey)).ok, true);
  assert.equal(verifyWebhook(body, headers, secret).ok, true, 'a v1 verifier skips the v1a entry');
  const other = newSigningKeyPair();
  assert.equal(pick(await verifyWebhookWithPublicKey(body, headers, other.publicKey)), 'invalid_signature');
  assert.equal(pick(await verifyWebhookWithPublicKey(`${body} `, headers, pair.publicKey)), 'invalid_signature');
  const late = new Date(Date.now() + 301_000);
  assert.equal(pick(await verifyWebhookWithPublicKey(body, headers, pair.publicKey, late)), 'invalid_signature');
  const v1Only = delivery({ current: secret });
  assert.equal(pick(await verifyWebhookWithPublicKey(body, v1Only, pair.publicKey)), 'invalid_signature');
});
