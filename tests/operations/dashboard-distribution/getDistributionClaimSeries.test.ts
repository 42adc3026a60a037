// getDistributionClaimSeries (GET /api/v1/apps/{appId}/distribution/claims/daily): the app's paid claims per UTC day
// over the last `days` days (default 30), today included, per rule with claims in the span, deleted rules included,
// in order of creation. Claims are written straight into distribution_claims as a claim leaves them, on chosen days;
// one is paid for real through the SDK on localnet. Set-up in setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { findApp } from '../../../src/domain/apps/store';
import { newId } from '../../../src/domain/ids';
import { appWithWallet, closeLedgersEvery, untilFunded, userWallet } from '../../support/funding';
import { signInOperator, type OperatorClient } from '../../support/operators';
import { signInUser } from '../../support/users';
import {
  anonymous,
  createRule,
  deleteRule,
  developer,
  issuedAsset,
  newRule,
  outsider,
  owner,
  svc,
  teamApp,
  useService,
  xlmRule,
} from './setup';

const DAY = 86_400_000;
const seriesPath = (appId: string) => `/api/v1/apps/${appId}/distribution/claims/daily`;
const series = (client: OperatorClient, appId: string, days?: number | string) =>
  client.call(
    'getDistributionClaimSeries',
    'GET',
    days === undefined ? seriesPath(appId) : `${seriesPath(appId)}?days=${days}`,
  );

/** Midnight (UTC) of today plus `days` days (negative: before today). */
const midnight = (days = 0) => new Date(Math.floor(Date.now() / DAY) * DAY + days * DAY);
const day = (at: Date) => at.toISOString().slice(0, 10);

/** A user of the app with a wallet (unfunded: the rows below only need one to point at). */
async function walletOf(appId: string): Promise<{ userId: string; walletId: string }> {
  const wallet = await userWallet(svc, (await findApp(svc.deps.db, appId))!);
  return { userId: wallet.userId!, walletId: wallet.id };
}

/** A claim of the rule, as the claim operation leaves it in `status`, made at `at`. */
async function claimRow(
  appId: string,
  user: { userId: string; walletId: string },
  ruleId: string,
  status: 'reserved' | 'submitted' | 'paid' | 'released',
  at: Date,
): Promise<void> {
  await svc.deps.db('distribution_claims').insert({
    id: newId('dcl'),
    rule_id: ruleId,
    app_id: appId,
    user_id: user.userId,
    wallet_id: user.walletId,
    asset: 'native',
    amount_stroops: '10000000',
    status,
    created_at: at,
    updated_at: at,
  });
}

/** The series' rules as [name, claims] pairs, in the answer's order. */
const lines = (res: { body: { content: { rules: { name: string; claims: number[] }[] } } }) =>
  res.body.content.rules.map((r) => [r.name, r.claims] as const);

describe('getDistributionClaimSeries', () => {
  useService();

  test('200 DISTRIBUTION_CLAIM_SERIES_FETCHED for a developer: 30 days by default, today last, 0 on days without claims', async () => {
    const appId = await teamApp();
    const rule = await newRule(appId, { name: 'Welcome bonus' });
    const user = await walletOf(appId);
    await claimRow(appId, user, rule.ruleId, 'paid', midnight(-30)); // the day before the span
    await claimRow(appId, user, rule.ruleId, 'paid', new Date(midnight(-29).getTime() - 1)); // still before it
    await claimRow(appId, user, rule.ruleId, 'paid', midnight(-29)); // the span's first instant
    await claimRow(appId, user, rule.ruleId, 'paid', midnight(-10));
    await claimRow(appId, user, rule.ruleId, 'paid', midnight());
    await claimRow(appId, user, rule.ruleId, 'paid', new Date(Date.now() - 1000));

    const res = await series(developer, appId);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'DISTRIBUTION_CLAIM_SERIES_FETCHED');
    const { dates, rules } = res.body.content;
    assert.deepEqual(
      dates,
      Array.from({ length: 30 }, (_, i) => day(midnight(i - 29))),
    );
    const claims = Array.from({ length: 30 }, () => 0);
    [claims[0], claims[19], claims[29]] = [1, 1, 2];
    assert.deepEqual(rules, [{ ruleId: rule.ruleId, name: 'Welcome bonus', asset: 'native', claims }]);
  });

  test('an app without paid claims: every date, no rules; a rule with claims only before the span is not listed', async () => {
    const appId = await teamApp();
    const rule = await newRule(appId);
    await claimRow(appId, await walletOf(appId), rule.ruleId, 'paid', midnight(-7));
    const res = await series(owner, appId, 7);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.content.dates.length, 7);
    assert.equal(res.body.content.dates[6], day(midnight()));
    assert.deepEqual(res.body.content.rules, []);
  });

  test('days=1: today only', async () => {
    const appId = await teamApp();
    const rule = await newRule(appId, { name: 'Daily' });
    const user = await walletOf(appId);
    await claimRow(appId, user, rule.ruleId, 'paid', new Date(midnight().getTime() - 1));
    await claimRow(appId, user, rule.ruleId, 'paid', midnight());
    await claimRow(appId, user, rule.ruleId, 'paid', new Date(Date.now() - 1000));
    const res = await series(owner, appId, 1);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.content.dates, [day(midnight())]);
    assert.deepEqual(lines(res), [['Daily', [2]]]);
  });

  test('paid claims counted on their UTC day, per rule in order of creation; reserved, submitted, released not counted', async () => {
    const appId = await teamApp();
    const later = await newRule(appId, { name: 'Created later' });
    const earlier = await newRule(appId, { name: 'Created earlier' });
    // created in the other order than the ids: the series follows created_at
    await svc.deps
      .db('distribution_rules')
      .where({ id: earlier.ruleId })
      .update({ created_at: midnight(-40) });
    const [ada, bob] = [await walletOf(appId), await walletOf(appId)];
    const twoDaysAgo = new Date(midnight(-2).getTime() + 13 * 3_600_000);
    const yesterday = new Date(midnight(-1).getTime() + 23 * 3_600_000 + 59 * 60_000);
    await claimRow(appId, ada, later.ruleId, 'paid', twoDaysAgo);
    await claimRow(appId, bob, later.ruleId, 'paid', twoDaysAgo);
    await claimRow(appId, ada, later.ruleId, 'paid', yesterday);
    await claimRow(appId, ada, earlier.ruleId, 'paid', yesterday);
    for (const status of ['reserved', 'submitted', 'released'] as const) {
      await claimRow(appId, bob, later.ruleId, status, twoDaysAgo);
      await claimRow(appId, bob, earlier.ruleId, status, midnight());
    }
    const onlyUnpaid = await newRule(appId, { name: 'Only released' });
    await claimRow(appId, ada, onlyUnpaid.ruleId, 'released', midnight());

    const res = await series(owner, appId, 3);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.content.dates, [day(midnight(-2)), day(midnight(-1)), day(midnight())]);
    assert.deepEqual(lines(res), [
      ['Created earlier', [0, 1, 0]],
      ['Created later', [2, 1, 0]],
    ]);
  });

  test('a deleted rule is still listed by name, with its asset', async () => {
    const asset = issuedAsset();
    const appId = await teamApp([asset]);
    const gone = await newRule(appId, { name: 'Retired campaign', asset, amountPerClaim: '2.5' });
    const user = await walletOf(appId);
    await claimRow(appId, user, gone.ruleId, 'paid', midnight(-1));
    assert.equal((await deleteRule(owner, appId, gone.ruleId)).status, 200);
    const res = await series(developer, appId, 2);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.content.rules, [
      { ruleId: gone.ruleId, name: 'Retired campaign', asset, claims: [1, 0] },
    ]);
  });

  test("another app's claims are not counted", async () => {
    const [appId, other] = [await teamApp(), await teamApp()];
    const mine = await newRule(appId, { name: 'Mine' });
    const theirs = await newRule(other, { name: 'Theirs' });
    await claimRow(appId, await walletOf(appId), mine.ruleId, 'paid', midnight());
    const elsewhere = await walletOf(other);
    await claimRow(other, elsewhere, theirs.ruleId, 'paid', midnight());
    await claimRow(other, elsewhere, theirs.ruleId, 'paid', midnight());
    const res = await series(owner, appId, 1);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(lines(res), [['Mine', [1]]]);
    assert.deepEqual(lines(await series(owner, other, 1)), [['Theirs', [2]]]);
  });

  test('400 VALIDATION_ERROR for days=0, days=91 and a non-number; 90 is allowed', async () => {
    const appId = await teamApp();
    for (const days of [0, 91, 'many']) {
      const res = await series(owner, appId, days);
      assert.equal(res.status, 400, `days=${days}: ${res.text}`);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
    }
    const widest = await series(owner, appId, 90);
    assert.equal(widest.status, 200, widest.text);
    assert.equal(widest.body.content.dates.length, 90);
  });

  test('404 APPLICATION_NOT_FOUND for an outsider; 400 a malformed appId; 401 without a session', async () => {
    const appId = await teamApp();
    const rule = await newRule(appId);
    await claimRow(appId, await walletOf(appId), rule.ruleId, 'paid', midnight());
    const res = await series(outsider, appId);
    assert.equal(res.status, 404, res.text);
    assert.equal(res.body.code, 'APPLICATION_NOT_FOUND');
    const malformed = await series(owner, 'app-1');
    assert.equal(malformed.status, 400, malformed.text);
    const anon = await anonymous('getDistributionClaimSeries', 'GET', seriesPath(appId));
    assert.equal(anon.status, 401, anon.text);
  });

  test('a claim paid through the SDK on localnet is counted today; one refused (no claim recorded) is not', async () => {
    const stopClosing = closeLedgersEvery(svc);
    try {
      const { creds } = await appWithWallet(svc, { settings: { fundingMode: 'immediate' } });
      const appOwner = await signInOperator(svc, creds.operator.email!);
      const created = await createRule(appOwner, creds.app.id, xlmRule({ name: 'Real claim' }));
      assert.equal(created.status, 201, created.text);
      const ruleId: string = created.body.content.ruleId;
      const user = await signInUser(svc, creds);
      await untilFunded(svc, user.signIn.wallet.walletId);
      const claimPath = `/v1/distribution/rules/${ruleId}/claim`;
      const paid = await user.call('claimDistributionRule', 'POST', claimPath);
      assert.equal(paid.status, 200, paid.text);
      assert.equal(paid.body.content.status, 'SUCCESS');
      const again = await user.call('claimDistributionRule', 'POST', claimPath); // once per user ever
      assert.equal(again.body.code, 'DISTRIBUTION_RATE_LIMIT_EXCEEDED');

      const res = await series(appOwner, creds.app.id, 2);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.content.rules, [{ ruleId, name: 'Real claim', asset: 'native', claims: [0, 1] }]);
    } finally {
      stopClosing();
    }
  });
});
