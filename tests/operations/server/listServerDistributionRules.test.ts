// listServerDistributionRules (GET /v1/distribution-rules): the key's app's rules, enabled or not, oldest first;
// never another app's, never a deleted one. Set-up in distributionRules.setup.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRule, deleteRule, keyApp, listRules, updateRule, useService, xlmRule } from './distributionRules.setup';

describe('listServerDistributionRules', () => {
  useService();

  test('200 SERVER_DISTRIBUTION_RULES_LISTED: the app\u2019s rules oldest first, disabled included, deleted and other apps\u2019 not', async () => {
    const creds = await keyApp();
    const other = await keyApp();
    const first = (await createRule(creds.secretKey, xlmRule({ name: 'First' }))).body.content;
    const second = (await createRule(creds.secretKey, xlmRule({ name: 'Second' }))).body.content;
    const third = (await createRule(creds.secretKey, xlmRule({ name: 'Third' }))).body.content;
    await createRule(other.secretKey, xlmRule({ name: 'Elsewhere' }));
    assert.equal((await updateRule(creds.secretKey, second.ruleId, { enabled: false })).status, 200);
    assert.equal((await deleteRule(creds.secretKey, third.ruleId)).status, 200);
    const res = await listRules(creds.secretKey);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.code, 'SERVER_DISTRIBUTION_RULES_LISTED');
    assert.deepEqual(
      res.body.content.rules.map((r: { ruleId: string; enabled: boolean }) => [r.ruleId, r.enabled]),
      [
        [first.ruleId, true],
        [second.ruleId, false],
      ],
    );
  });

  test('401 without a key; 403 with the publishable key', async () => {
    const creds = await keyApp();
    const wrongType = await listRules(creds.publishableKey);
    assert.deepEqual([wrongType.status, wrongType.body.code], [403, 'API_KEY_TYPE_NOT_ALLOWED']);
    const none = await listRules('');
    assert.equal(none.status, 401, none.text);
  });
});
