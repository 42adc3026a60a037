import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiKeyStatus, rotationEnd } from './lifecycle';

const now = new Date('2026-11-23T09:00:00.000Z');
const later = new Date(now.getTime() + 60_000);
const earlier = new Date(now.getTime() - 60_000);
const none = { revokedAt: null, expiresAt: null, rotatedAt: null };

test('status: a key without dates is active; a future expiry alone keeps it active (not rotating)', () => {
  assert.equal(apiKeyStatus(none, now), 'active');
  assert.equal(apiKeyStatus({ ...none, expiresAt: later }, now), 'active');
});

test('status: expired from the moment expiresAt is reached', () => {
  assert.equal(apiKeyStatus({ ...none, expiresAt: earlier }, now), 'expired');
  assert.equal(apiKeyStatus({ ...none, expiresAt: now }, now), 'expired');
});

test('status: a rotated key is rotating until its end, then expired', () => {
  assert.equal(apiKeyStatus({ ...none, rotatedAt: earlier, expiresAt: later }, now), 'rotating');
  assert.equal(apiKeyStatus({ ...none, rotatedAt: earlier, expiresAt: now }, now), 'expired');
});

test('status: revoked wins over expired and rotating', () => {
  assert.equal(apiKeyStatus({ revokedAt: earlier, expiresAt: earlier, rotatedAt: earlier }, now), 'revoked');
  assert.equal(apiKeyStatus({ revokedAt: earlier, expiresAt: later, rotatedAt: earlier }, now), 'revoked');
});

test('rotation end: now + overlap (0 = now), never later than an earlier expiry', () => {
  assert.equal(rotationEnd(now, 0, null).toISOString(), now.toISOString());
  assert.equal(rotationEnd(now, 3600, null).toISOString(), '2026-11-23T10:00:00.000Z');
  assert.equal(rotationEnd(now, 3600, later).toISOString(), later.toISOString());
  assert.equal(rotationEnd(now, 30, later).toISOString(), '2026-11-23T09:00:30.000Z');
  assert.equal(rotationEnd(now, 3600, earlier).toISOString(), earlier.toISOString());
});
