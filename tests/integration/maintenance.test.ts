// The maintenance loop's prunes on real PostgreSQL: what is past its use goes, what may still be needed stays.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { setDailyUsage, utcDay } from '../../src/domain/limits/dailyQuota';
import { runMaintenance } from '../../src/domain/maintenance/maintenance';
import { seedCredentials } from '../support/credentials';
import { startTestService, type TestService } from '../support/service';

let svc: TestService;
before(async () => {
  svc = await startTestService({ LOCALNET: 'off' });
});
after(async () => {
  await svc?.stop();
});

test('maintenance deletes expired DPoP proof ids, dead email codes, old idempotency records and past quota days only', async () => {
  const db = svc.deps.db;
  const now = new Date();
  const hoursAgo = (h: number) => new Date(now.getTime() - h * 3_600_000);
  await db('dpop_proof_jtis').insert([
    { jkt: 'k', jti: 'old', expires_at: hoursAgo(1) },
    { jkt: 'k', jti: 'live', expires_at: new Date(now.getTime() + 60_000) },
  ]);
  const codeRow = {
    scope: 'operator',
    code_hash: Buffer.alloc(32),
    attempts: 0,
    sent_at: hoursAgo(49),
    created_at: hoursAgo(49),
  };
  await db('email_codes').insert([
    { ...codeRow, email: 'dead@example.com', expires_at: hoursAgo(48) },
    { ...codeRow, email: 'recent@example.com', expires_at: hoursAgo(1) },
  ]);
  const creds = await seedCredentials(db);
  await setDailyUsage(db, creds.secretKeyId, utcDay(hoursAgo(72)), 5);
  await setDailyUsage(db, creds.secretKeyId, utcDay(hoursAgo(24)), 5);
  await setDailyUsage(db, creds.secretKeyId, utcDay(now), 5);

  const removed = await runMaintenance(db, { now: () => now }, pino({ level: 'silent' }));

  assert.deepEqual((await db('dpop_proof_jtis').pluck('jti')).sort(), ['live']);
  assert.deepEqual(await db('email_codes').pluck('email'), ['recent@example.com']);
  const days = (await db('api_key_daily_usage').where({ key_id: creds.secretKeyId }).pluck('day')).map(
    (d: Date | string) => (d instanceof Date ? utcDay(d) : d),
  );
  assert.equal(days.length, 2, 'today and yesterday are kept');
  assert.ok(
    removed.dpopProofJtis === 1 && removed.emailCodes === 1 && removed.apiKeyDailyUsage === 1,
    JSON.stringify(removed),
  );
  assert.equal(typeof removed.idempotencyKeys, 'number');
});
