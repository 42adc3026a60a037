// updateServerDistributionRule (PATCH /v1/distribution-rules/{ruleId}): a rule of the key's app changes as sent, audited
// with the key as actor; another app's rule is not found; the allocation never goes below the claims made. Set-up in
// distributionRules.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { auditOf, createRule, keyApp, svc, updateRule, useService, xlmRule } from './distributionRules.setup';

describe('updateServerDistributionRule', () => {
  useService();

  test('200 SERVER_DISTRIBUTION_RULE_UPDATED: only the fields sent change; audited with the key as actor', async () => {
    const creds = await keyApp();
    const rule = (await createRule(creds.secretKey, xlmRule({ totalAllocation: 10 }))).body.content;
    const res = await updateRule(creds.secretKey, rule.ruleId, { amountPerClaim: '2.5', enabled: false });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'SERVER_DISTRIBUTION_RULE_UPDATED');
    assert.deepEqual(
      [
        res.body.content.amountPerClaim,
        res.body.content.enabled,
        res.body.content.totalAllocation,
        res.body.content.name,
      ],
      ['2.5', false, 10, 'Welcome bonus'],
    );
    const [audited] = await auditOf(creds.app.id, 'distribution_rule.updated');
    assert.deepEqual([audited?.actor_type, audited?.actor_id], ['api_key', creds.secretKeyId]);
  });

  test('404 DISTRIBUTION_RULE_NOT_FOUND for another app\u2019s rule, which stays as it was', async () => {
    const creds = await keyApp();
    const other = await keyApp();
    const theirs = (await createRule(other.secretKey, xlmRule())).body.content;
    const res = await updateRule(creds.secretKey, theirs.ruleId, { enabled: false });
    assert.deepEqual([res.status, res.body.code], [404, 'DISTRIBUTION_RULE_NOT_FOUND']);
    assert.equal((await svc.deps.db('distribution_rules').where({ id: theirs.ruleId }).first()).enabled, true);
  });

  test('422 DISTRIBUTION_ALLOCATION_BELOW_CLAIMED: totalAllocation below the claims already made', async () => {
    const creds = await keyApp();
    const rule = (await createRule(creds.secretKey, xlmRule({ totalAllocation: 10 }))).body.content;
    await svc.deps.db('distribution_rules').where({ id: rule.ruleId }).update({ claimed_count: 4 });
    const res = await updateRule(creds.secretKey, rule.ruleId, { totalAllocation: 3 });
    assert.deepEqual([res.status, res.body.code], [422, 'DISTRIBUTION_ALLOCATION_BELOW_CLAIMED'], res.text);
    assert.ok(res.body.details.fieldErrors.totalAllocation, res.text);
  });
});
