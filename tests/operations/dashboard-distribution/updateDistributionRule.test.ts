// updateDistributionRule (PATCH /api/v1/apps/{appId}/distribution/rules/{ruleId}): a member changes a rule; omitted
// fields stay, null clears; the window and the allocation are checked against the rule as it would be; the asset is
// fixed; a rule of another app or a deleted one is not found. Set-up in setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  anonymous,
  auditOf,
  deleteRule,
  developer,
  newRule,
  outsider,
  owner,
  rulesPath,
  storedRule,
  svc,
  teamApp,
  updateRule,
  useService,
} from './setup';

const setClaimedCount = (ruleId: string, n: number) =>
  svc.deps.db('distribution_rules').where({ id: ruleId }).update({ claimed_count: n });

describe('updateDistributionRule', () => {
  useService();

  test('200 for a member: the patched fields change, the others stay; audited with before and after', async () => {
    const appId = await teamApp();
    const rule = await newRule(appId, { totalAllocation: 100, validFrom: '2026-12-01T00:00:00.000Z' });
    await setClaimedCount(rule.ruleId, 12);
    const res = await updateRule(developer, appId, rule.ruleId, {
      amountPerClaim: '1.5',
      validUntil: '2027-01-31T23:59:59.000Z',
      rateLimit: { maxClaims: 1, periodSeconds: 86400 },
      enabled: false,
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'DISTRIBUTION_RULE_UPDATED');
    assert.deepEqual(res.body.content, {
      ...rule,
      amountPerClaim: '1.5',
      validUntil: '2027-01-31T23:59:59.000Z',
      rateLimit: { maxClaims: 1, periodSeconds: 86400 },
      enabled: false,
      claimedCount: 12, // kept: pausing a rule keeps its claim count
    });
    assert.equal((await storedRule(rule.ruleId)).amount_per_claim_stroops, '15000000');
    const [audited] = await auditOf(appId, 'distribution_rule.updated');
    assert.equal(audited?.actor_id, developer.operatorId);
    assert.deepEqual(audited?.details, {
      ruleId: rule.ruleId,
      changed: 'amountPerClaim,validUntil,rateLimit,enabled',
      amountPerClaim: '1.5',
      amountPerClaimBefore: '1',
      validUntil: '2027-01-31T23:59:59.000Z',
      validUntilBefore: null,
      rateLimit: '1/86400s',
      rateLimitBefore: null,
      enabled: false,
      enabledBefore: true,
    });
  });

  test('null clears: no end date, unlimited allocation, one claim per user ever', async () => {
    const appId = await teamApp();
    const rule = await newRule(appId, {
      totalAllocation: 10,
      validUntil: '2027-01-01T00:00:00.000Z',
      rateLimit: { maxClaims: 3, periodSeconds: 60 },
    });
    const res = await updateRule(owner, appId, rule.ruleId, {
      totalAllocation: null,
      validUntil: null,
      rateLimit: null,
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      [res.body.content.totalAllocation, res.body.content.validUntil, res.body.content.rateLimit],
      [null, null, null],
    );
    const stored = await storedRule(rule.ruleId);
    assert.deepEqual(
      [stored.total_allocation, stored.valid_until, stored.rate_limit_max_claims, stored.rate_limit_period_seconds],
      [null, null, null, null],
    );
  });

  test('a patch that changes nothing answers the rule and writes no audit entry', async () => {
    const appId = await teamApp();
    const rule = await newRule(appId);
    const res = await updateRule(owner, appId, rule.ruleId, { name: rule.name, amountPerClaim: '1.0' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.content, rule);
    assert.equal((await auditOf(appId, 'distribution_rule.updated')).length, 0);
  });

  test('422 DISTRIBUTION_ALLOCATION_BELOW_CLAIMED: totalAllocation below claimedCount (equal is fine), naming it', async () => {
    const appId = await teamApp();
    const rule = await newRule(appId, { totalAllocation: 100 });
    await setClaimedCount(rule.ruleId, 12);
    const below = await updateRule(owner, appId, rule.ruleId, { totalAllocation: 11 });
    assert.deepEqual([below.status, below.body.code], [422, 'DISTRIBUTION_ALLOCATION_BELOW_CLAIMED'], below.text);
    assert.deepEqual(below.body.details.fieldErrors, { totalAllocation: ['must not be below claimedCount (12)'] });
    assert.equal((await storedRule(rule.ruleId)).total_allocation, 100);
    const equal = await updateRule(owner, appId, rule.ruleId, { totalAllocation: 12 });
    assert.equal(equal.status, 200, equal.text);
    assert.equal(equal.body.content.totalAllocation, 12);
  });

  test('400 for amount 0 or an empty or asset patch; 422 DISTRIBUTION_RULE_WINDOW_INVALID for a window that would close before it opens (with the stored end)', async () => {
    const appId = await teamApp();
    const rule = await newRule(appId, { validUntil: '2026-12-31T00:00:00.000Z' });
    const zero = await updateRule(owner, appId, rule.ruleId, { amountPerClaim: '0' });
    assert.equal(zero.status, 400, zero.text);
    assert.deepEqual(Object.keys(zero.body.details.fieldErrors), ['amountPerClaim']);
    const late = await updateRule(owner, appId, rule.ruleId, { validFrom: '2026-12-31T00:00:00.000Z' });
    assert.deepEqual([late.status, late.body.code], [422, 'DISTRIBUTION_RULE_WINDOW_INVALID'], late.text);
    assert.deepEqual(late.body.details.fieldErrors, { validFrom: ['must be before validUntil'] });
    const early = await updateRule(owner, appId, rule.ruleId, {
      validFrom: '2026-12-01T00:00:00.000Z',
      validUntil: '2026-11-01T00:00:00.000Z',
    });
    assert.deepEqual([early.status, early.body.code], [422, 'DISTRIBUTION_RULE_WINDOW_INVALID'], early.text);
    assert.deepEqual(early.body.details.fieldErrors, { validUntil: ['must be after validFrom'] });
    const empty = await updateRule(owner, appId, rule.ruleId, {});
    assert.equal(empty.status, 400, empty.text);
    const asset = await updateRule(owner, appId, rule.ruleId, { asset: 'native' });
    assert.equal(asset.status, 400, asset.text);
    const malformed = await updateRule(owner, appId, 'rule-1', { enabled: false });
    assert.equal(malformed.status, 400, malformed.text);
    assert.ok(malformed.body.details.fieldErrors['path.ruleId'], malformed.text);
    assert.deepEqual(await updateRule(owner, appId, rule.ruleId, { enabled: true }).then((r) => r.body.content), rule);
    assert.equal((await auditOf(appId, 'distribution_rule.updated')).length, 0);
  });

  test("404: another app's rule through this app, a deleted rule, an outsider; 401 without a session", async () => {
    const [mine, theirs] = [await teamApp(), await teamApp()];
    const rule = await newRule(theirs);
    const cross = await updateRule(owner, mine, rule.ruleId, { enabled: false });
    assert.equal(cross.status, 404, cross.text);
    assert.equal(cross.body.code, 'DISTRIBUTION_RULE_NOT_FOUND');
    const foreign = await updateRule(outsider, theirs, rule.ruleId, { enabled: false });
    assert.equal(foreign.status, 404, foreign.text);
    assert.equal(foreign.body.code, 'APPLICATION_NOT_FOUND');
    const anon = await anonymous('updateDistributionRule', 'PATCH', `${rulesPath(theirs)}/${rule.ruleId}`, {
      enabled: false,
    });
    assert.equal(anon.status, 401, anon.text);
    assert.equal((await deleteRule(owner, theirs, rule.ruleId)).status, 200);
    const deleted = await updateRule(owner, theirs, rule.ruleId, { enabled: false });
    assert.equal(deleted.status, 404, deleted.text);
    assert.equal(deleted.body.code, 'DISTRIBUTION_RULE_NOT_FOUND');
    assert.equal((await storedRule(rule.ruleId)).enabled, true);
  });
});
