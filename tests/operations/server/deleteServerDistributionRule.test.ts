// deleteServerDistributionRule (DELETE /v1/distribution-rules/{ruleId}): a rule of the key's app is deleted (its row
// kept for the history), audited with the key as actor, and not found from then on. Set-up in
// distributionRules.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  auditOf,
  createRule,
  deleteRule,
  keyApp,
  listRules,
  svc,
  updateRule,
  useService,
  xlmRule,
} from './distributionRules.setup';

describe('deleteServerDistributionRule', () => {
  useService();

  test('200 SERVER_DISTRIBUTION_RULE_DELETED; then 404 for every operation on it; the row stays for the history', async () => {
    const creds = await keyApp();
    const rule = (await createRule(creds.secretKey, xlmRule())).body.content;
    const res = await deleteRule(creds.secretKey, rule.ruleId);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      [res.body.code, res.body.content],
      ['SERVER_DISTRIBUTION_RULE_DELETED', { ruleId: rule.ruleId, deleted: true }],
    );
    assert.equal((await listRules(creds.secretKey)).body.content.rules.length, 0);
    assert.equal((await deleteRule(creds.secretKey, rule.ruleId)).body.code, 'DISTRIBUTION_RULE_NOT_FOUND');
    assert.equal((await updateRule(creds.secretKey, rule.ruleId, { enabled: false })).status, 404);
    assert.ok((await svc.deps.db('distribution_rules').where({ id: rule.ruleId }).first()).deleted_at);
    const [audited] = await auditOf(creds.app.id, 'distribution_rule.deleted');
    assert.deepEqual([audited?.actor_type, audited?.actor_id], ['api_key', creds.secretKeyId]);
  });

  test('404 DISTRIBUTION_RULE_NOT_FOUND for another app\u2019s rule, which stays', async () => {
    const creds = await keyApp();
    const other = await keyApp();
    const theirs = (await createRule(other.secretKey, xlmRule())).body.content;
    const res = await deleteRule(creds.secretKey, theirs.ruleId);
    assert.deepEqual([res.status, res.body.code], [404, 'DISTRIBUTION_RULE_NOT_FOUND']);
    assert.equal((await listRules(other.secretKey)).body.content.rules.length, 1);
  });
});
