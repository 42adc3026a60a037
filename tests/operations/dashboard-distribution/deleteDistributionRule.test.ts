// deleteDistributionRule (DELETE /api/v1/apps/{appId}/distribution/rules/{ruleId}): a member deletes a rule; the row
// stays (its claims keep their rule) with deleted_at set, and the rule is not found anywhere after. Set-up in setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  anonymous,
  auditOf,
  deleteRule,
  developer,
  listRules,
  newRule,
  outsider,
  owner,
  rulesPath,
  storedRule,
  teamApp,
  updateRule,
  useService,
} from './setup';

describe('deleteDistributionRule', () => {
  useService();

  test('200 for a member: soft-deleted (the row stays), gone from the list, audited', async () => {
    const appId = await teamApp();
    const [kept, gone] = [await newRule(appId, { name: 'Kept' }), await newRule(appId, { name: 'Gone' })];
    const res = await deleteRule(developer, appId, gone.ruleId);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'DISTRIBUTION_RULE_DELETED');
    assert.deepEqual(res.body.content, { ruleId: gone.ruleId, deleted: true });
    const stored = await storedRule(gone.ruleId);
    assert.ok(stored.deleted_at instanceof Date, 'the row is kept, marked deleted');
    const list = await listRules(owner, appId);
    assert.deepEqual(
      list.body.content.rules.map((r: { ruleId: string }) => r.ruleId),
      [kept.ruleId],
    );
    const [audited] = await auditOf(appId, 'distribution_rule.deleted');
    assert.equal(audited?.actor_id, developer.operatorId);
    assert.deepEqual(audited?.details, { ruleId: gone.ruleId, name: 'Gone', asset: 'native', claimedCount: 0 });
  });

  test('404 DISTRIBUTION_RULE_NOT_FOUND: deleted twice, or changed after deletion; audited once', async () => {
    const appId = await teamApp();
    const rule = await newRule(appId);
    assert.equal((await deleteRule(owner, appId, rule.ruleId)).status, 200);
    const again = await deleteRule(owner, appId, rule.ruleId);
    assert.equal(again.status, 404, again.text);
    assert.equal(again.body.code, 'DISTRIBUTION_RULE_NOT_FOUND');
    assert.equal((await updateRule(owner, appId, rule.ruleId, { enabled: false })).status, 404);
    assert.equal((await auditOf(appId, 'distribution_rule.deleted')).length, 1);
  });

  test("404: another app's rule through this app (kept), an outsider; 400 a malformed ruleId; 401 without a session", async () => {
    const [mine, theirs] = [await teamApp(), await teamApp()];
    const rule = await newRule(theirs);
    const cross = await deleteRule(owner, mine, rule.ruleId);
    assert.equal(cross.status, 404, cross.text);
    assert.equal(cross.body.code, 'DISTRIBUTION_RULE_NOT_FOUND');
    const foreign = await deleteRule(outsider, theirs, rule.ruleId);
    assert.equal(foreign.status, 404, foreign.text);
    assert.equal(foreign.body.code, 'APPLICATION_NOT_FOUND');
    const malformed = await deleteRule(owner, theirs, 'rule-1');
    assert.equal(malformed.status, 400, malformed.text);
    assert.ok(malformed.body.details.fieldErrors['path.ruleId'], malformed.text);
    const anon = await anonymous('deleteDistributionRule', 'DELETE', `${rulesPath(theirs)}/${rule.ruleId}`);
    assert.equal(anon.status, 401, anon.text);
    assert.equal((await storedRule(rule.ruleId)).deleted_at, null);
  });
});
