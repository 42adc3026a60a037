// Security finding 3 (issue #23): anyone holding an app's publishable key (public by design) could lock out all its
// users: 650 invalid `POST /v1/auth/email/start` used up the key's 600 per minute, and then a signed-in user's
// GET /v1/wallet answered 429; on testnet, 1,000 such requests used up the day's quota. Now requests without a
// session count per key and client address, signed-in requests per user, and the quota only counts valid requests.
// With the service's default limits (600 per minute, 1,000 per testnet key per day).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { utcDay } from '../../src/domain/limits/dailyQuota';
import { IDLE_RETURN_MS } from '../../src/domain/limits/quotaLeases';
import type { SeededCredentials } from '../support/credentials';
import { rawCall } from '../support/http';
import { startTestService, type TestService } from '../support/service';
import { signInUser, type UserClient } from '../support/users';
import { appWithWallet } from '../support/funding';

let svc: TestService;
let creds: SeededCredentials;
let user: UserClient;

before(async () => {
  svc = await startTestService({ RATE_LIMIT_PER_KEY_PER_MINUTE: '600', TESTNET_DAILY_QUOTA: '1000' });
  ({ creds } = await appWithWallet(svc, { settings: { fundingMode: 'immediate' } }));
  user = await signInUser(svc, creds);
});
after(async () => {
  await svc?.stop();
});

/**
 * The quota the key really spent: each process leases blocks and gives back what it did not spend once the key's
 * requests stop (quotaLeases.ts), so the stored count is read after that.
 */
async function quotaUsed(): Promise<number> {
  await new Promise((r) => setTimeout(r, IDLE_RETURN_MS + 200));
  const row = await svc.deps
    .db('api_key_daily_usage')
    .where({ key_id: creds.publishableKeyId, day: utcDay(new Date()) })
    .first('count');
  return Number(row?.count ?? 0);
}

describe("a publishable key cannot be turned against the app's users", () => {
  test("1,050 invalid requests with the key: the sender is limited, the app's signed-in users still get 200, no quota used", async () => {
    const quotaBefore = await quotaUsed();
    const statuses: number[] = [];
    for (let batch = 0; batch < 21; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 50 }, () =>
          rawCall(svc.url, 'POST', '/v1/auth/email/start', {
            headers: { 'x-service-api-key': creds.publishableKey, 'content-type': 'application/json' },
            rawBody: '{"nope":1}',
          }),
        ),
      );
      statuses.push(...answers.map((a) => a.status));
    }
    assert.equal(statuses.length, 1050);
    assert.ok(
      statuses.every((s) => s === 400 || s === 429),
      `only 400 and 429: ${[...new Set(statuses)].join(',')}`,
    );
    assert.ok(statuses.filter((s) => s === 429).length >= 400, 'the sender is limited in its own bucket');

    const wallet = await user.rawCall('GET', '/v1/wallet');
    assert.equal(wallet.status, 200, wallet.text);
    assert.ok(wallet.headers.get('RateLimit-Remaining'), 'the user has a bucket of their own');
    assert.ok(Number(wallet.headers.get('RateLimit-Remaining')) > 0);
    assert.ok((await quotaUsed()) - quotaBefore <= 1, 'invalid requests cost no quota');
  });
});
